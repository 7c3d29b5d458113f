import { PlatformFoundation1763800000000 } from './1763800000000-platform-foundation';

/** Every migration, in order. A new migration is appended here and never edited after landing. */
export const migrations = [PlatformFoundation1763800000000];

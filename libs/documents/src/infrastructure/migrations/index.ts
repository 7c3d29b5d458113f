import { MigrationClass } from '@app/shared-kernel';
import { DocumentTemplates1763803000000 } from './1763803000000-document-templates';

/**
 * The document templates' tables.
 * A new migration of this context goes in this folder and is appended here; never edited after landing.
 */
export const documentsMigrations: readonly MigrationClass[] = [DocumentTemplates1763803000000];

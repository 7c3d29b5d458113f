import { PlatformFoundation1763800000000 } from './1763800000000-platform-foundation';
import { Identity1763800100000 } from './1763800100000-identity';
import { Wallets1763800200000 } from './1763800200000-wallets';
import { IdempotencyClaim1763800300000 } from './1763800300000-idempotency-claim';
import { WalletLock1763800400000 } from './1763800400000-wallet-lock';
import { IdempotencyConcurrentReplays1763800500000 } from './1763800500000-idempotency-concurrent-replays';
import { HotPathPlans1763800600000 } from './1763800600000-hot-path-plans';

/** Every migration, in order. A new migration is appended here and never edited after landing. */
export const migrations = [
  PlatformFoundation1763800000000,
  Identity1763800100000,
  Wallets1763800200000,
  IdempotencyClaim1763800300000,
  WalletLock1763800400000,
  IdempotencyConcurrentReplays1763800500000,
  HotPathPlans1763800600000,
];

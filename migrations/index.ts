import { PlatformFoundation1763800000000 } from './1763800000000-platform-foundation';
import { Identity1763800100000 } from './1763800100000-identity';
import { Wallets1763800200000 } from './1763800200000-wallets';
import { IdempotencyClaim1763800300000 } from './1763800300000-idempotency-claim';
import { WalletLock1763800400000 } from './1763800400000-wallet-lock';
import { IdempotencyConcurrentReplays1763800500000 } from './1763800500000-idempotency-concurrent-replays';
import { HotPathPlans1763800600000 } from './1763800600000-hot-path-plans';
import { PrimaryWalletForEveryCustomer1763800700000 } from './1763800700000-primary-wallet-for-every-customer';
import { IdempotencyKeyScope1763801100000 } from './1763801100000-idempotency-key-scope';
import { UserEmailPerOrganization1763801100001 } from './1763801100001-user-email-per-organization';
import { FxRatesPerWorkspace1763801200000 } from './1763801200000-fx-rates-per-workspace';
import { CustomerVerifications1763802000000 } from './1763802000000-customer-verifications';
import { DocumentTemplates1763803000000 } from './1763803000000-document-templates';
import { CatalogCostsProducts1763804000000 } from './1763804000000-catalog-costs-products';
import { CatalogErrorDetails1763804100000 } from './1763804100000-catalog-error-details';
import { CatalogPlans1763805000000 } from './1763805000000-catalog-plans';
import { PlanListIndexes1763805100000 } from './1763805100000-plan-list-indexes';
import { PlanSubscriberMoves1763805200000 } from './1763805200000-plan-subscriber-moves';
import { PlanCascadesAndReferrers1763805300000 } from './1763805300000-plan-cascades-and-referrers';
import { PlanTimesAfterCreation1763805400000 } from './1763805400000-plan-times-after-creation';
import { PlanMigrationSweep1763805500000 } from './1763805500000-plan-migration-sweep';
import { PlanStatusCounts1763805600000 } from './1763805600000-plan-status-counts';
import { DistributionReadyKeys1763806000000 } from './1763806000000-distribution-ready-keys';
import { SignInAttempts1763806100000 } from './1763806100000-sign-in-attempts';
import { DistributeOnCitus1763807000000 } from './1763807000000-distribute-on-citus';
import { RateLimitWindowsOnCoordinator1763807100000 } from './1763807100000-rate-limit-windows-on-coordinator';
import { ApiKeyVersion1763807300000 } from './1763807300000-api-key-version';
import { Events1763808200000 } from './1763808200000-events';
import { WebhookEndpoints1763809000000 } from './1763809000000-webhook-endpoints';

/** Every migration, in order. A new migration is appended here and never edited after landing. */
export const migrations = [
  PlatformFoundation1763800000000,
  Identity1763800100000,
  Wallets1763800200000,
  IdempotencyClaim1763800300000,
  WalletLock1763800400000,
  IdempotencyConcurrentReplays1763800500000,
  HotPathPlans1763800600000,
  PrimaryWalletForEveryCustomer1763800700000,
  IdempotencyKeyScope1763801100000,
  UserEmailPerOrganization1763801100001,
  FxRatesPerWorkspace1763801200000,
  CustomerVerifications1763802000000,
  DocumentTemplates1763803000000,
  CatalogCostsProducts1763804000000,
  CatalogErrorDetails1763804100000,
  CatalogPlans1763805000000,
  PlanListIndexes1763805100000,
  PlanSubscriberMoves1763805200000,
  PlanCascadesAndReferrers1763805300000,
  PlanTimesAfterCreation1763805400000,
  PlanMigrationSweep1763805500000,
  PlanStatusCounts1763805600000,
  DistributionReadyKeys1763806000000,
  SignInAttempts1763806100000,
  DistributeOnCitus1763807000000,
  RateLimitWindowsOnCoordinator1763807100000,
  ApiKeyVersion1763807300000,
  Events1763808200000,
  WebhookEndpoints1763809000000,
];

export * from './catalog.module';
export * from './application/catalog.commands';
export * from './application/catalog.queries';
export type * from './application/catalog.views';
export { CostCascades, CASCADE_EXPAND_PAGE, CASCADE_RUN_JOB, CASCADE_TASK_JOB } from './application/cost-cascades';
export { ProductReleases, FIRE_PRODUCT_RELEASE_JOB } from './application/product-releases';
export { EvaluateFormulaQuery } from './application/evaluate-formula';
export * from './application/plan.commands';
export { GetPlanQuery, GetPlanDraftQuery, GetPlanVersionQuery, ListPlanVersionsQuery } from './application/plan.queries';
export type { PlanView, PlanVersionView, PlanMembershipView } from './application/plan.queries';
export type { TermsInput, TrackMode } from './domain/membership-terms';
export { PlanReleases, FIRE_PLAN_RELEASE_JOB } from './application/plan-releases';
export { PlanCascades, PLAN_CASCADE_TASK_JOB } from './application/plan-cascades';
export { CascadeRuns, CASCADE_RUN_SETTLE_JOB } from './application/cascade-runs';
export {
  GetPlanPublishImpactQuery,
  GetSupersedeForecastQuery,
  ListVersionReferrersQuery,
  GetVersionUsageQuery,
  REFERRER_TYPES,
} from './application/plan-insight.queries';
export type {
  PublishImpactView,
  SupersedeForecastView,
  VersionReferrerView,
  VersionUsageView,
} from './application/plan-insight.queries';
export { CheckPlanPublishQuery } from './application/plan-publish-check';
export type { PublishCheckView } from './application/plan-publish-check';
export { RepublishPlansCommand, REPUBLISH_MAX_PLANS } from './application/plan-republish';
export type { RepublishOutcome } from './application/plan-republish';
export { ListPlansQuery } from './application/plan-list';
export type { PlanListView } from './application/plan-list';
export {
  MAX_IN_VALUES,
  MAX_SEARCH_LENGTH,
  MAX_TAGS,
  PLAN_COUNTABLE,
  PLAN_SORT_KEYS,
  PLAN_STATUSES,
  RANGE_OPS,
  TIMESTAMP_FIELDS,
} from './domain/plan-filters';
export * from './application/subscription.commands';
export {
  MigrationRunner,
  MIGRATION_RUN_JOB,
  MIGRATION_START_JOB,
  MIGRATION_BATCH_SIZE,
  MIGRATION_BATCHES_PER_RUN,
} from './application/migration-runner';
export { MIGRATION_MODES, PRORATION_STRATEGIES, OUTCOME_STATUSES, SKIP_REASONS } from './domain/plan-migration';
export { PLAN_TRACK_MODES, VERSION_CHANGE_STRATEGIES } from './domain/subscription';
export { catalogMigrations } from './infrastructure/migrations';

export * from './catalog.module';
export { type CostInput, CreateCostCommand } from './application/costs/create-cost.command';
export { type CostUpdateInput, UpdateCostCommand } from './application/costs/update-cost.command';
export { RemoveCostCommand } from './application/costs/remove-cost.command';
export { RestoreCostCommand } from './application/costs/restore-cost.command';
export type { ProductInput } from './application/products/product-input';
export { CreateProductCommand } from './application/products/create-product.command';
export { UpdateProductCommand } from './application/products/update-product.command';
export { OpenProductDraftCommand } from './application/products/open-product-draft.command';
export { DiscardProductDraftCommand } from './application/products/discard-product-draft.command';
export { type ChangeInput, CreateChangeCommand } from './application/changes/create-change.command';
export { CancelChangeCommand } from './application/changes/cancel-change.command';
export { GetCostQuery } from './application/costs/get-cost.query';
export { ListCostsQuery } from './application/costs/list-costs.query';
export { ListCostConsumersQuery } from './application/costs/list-cost-consumers.query';
export { type ProductCostsView, ListProductCostsQuery } from './application/costs/list-product-costs.query';
export { GetProductQuery } from './application/products/get-product.query';
export { ListProductsQuery } from './application/products/list-products.query';
export { ListProductVersionsQuery } from './application/products/list-product-versions.query';
export { GetProductVersionQuery } from './application/products/get-product-version.query';
export { GetProductDraftQuery } from './application/products/get-product-draft.query';
export { GetChangeQuery } from './application/changes/get-change.query';
export { GetCascadeRunQuery } from './application/cascade-runs/get-cascade-run.query';
export { ListCascadeTasksQuery } from './application/cascade-runs/list-cascade-tasks.query';
export type { CostView } from './application/costs/cost.view';
export type { ConsumerView } from './application/costs/list-cost-consumers.query';
export type { VersionRef, VersionLifecycleView } from './application/version-views';
export type { ProductView, MaterializedCostView, ProductVersionView } from './application/products/product.views';
export type { ProductDraftView } from './application/products/get-product-draft.query';
export type { ChangeView } from './application/changes/get-change.query';
export type { CascadeRunView } from './application/cascade-runs/get-cascade-run.query';
export type { CascadeTaskView } from './application/cascade-runs/list-cascade-tasks.query';
export { CostCascades, CASCADE_EXPAND_PAGE, CASCADE_RUN_JOB, CASCADE_TASK_JOB } from './application/costs/cost-cascades';
export { ProductReleases, FIRE_PRODUCT_RELEASE_JOB } from './application/product-releases';
export { EvaluateFormulaQuery } from './application/costs/evaluate-formula.query';
export type { PlanInput } from './application/plans/plan-input';
export { CreatePlanCommand } from './application/plans/create-plan.command';
export { UpdatePlanCommand } from './application/plans/update-plan.command';
export { DeletePlanCommand } from './application/plans/delete-plan.command';
export { CopyPlanCommand } from './application/plans/copy-plan.command';
export { OpenPlanDraftCommand } from './application/plans/open-plan-draft.command';
export { DiscardPlanDraftCommand } from './application/plans/discard-plan-draft.command';
export { AddPlanProductCommand } from './application/plans/add-plan-product.command';
export { UpdatePlanProductCommand } from './application/plans/update-plan-product.command';
export { RemovePlanProductCommand } from './application/plans/remove-plan-product.command';
export { AnnotatePlanVersionCommand } from './application/plans/annotate-plan-version.command';
export { GetPlanQuery } from './application/plans/get-plan.query';
export { GetPlanDraftQuery } from './application/plans/get-plan-draft.query';
export { GetPlanVersionQuery } from './application/plans/get-plan-version.query';
export { ListPlanVersionsQuery } from './application/plans/list-plan-versions.query';
export type { PlanView, PlanVersionView } from './application/plans/plan-views';
export type { PlanMembershipView } from './application/plans/plan-memberships';
export type { TermsInput, TrackMode } from './domain/membership-terms';
export { PlanReleases, FIRE_PLAN_RELEASE_JOB } from './application/plan-releases';
export { PlanCascades, PLAN_CASCADE_TASK_JOB } from './application/plan-cascades';
export { CascadeRuns, CASCADE_RUN_SETTLE_JOB } from './application/cascade-runs/cascade-runs';
export { GetPlanPublishImpactQuery } from './application/plans/get-plan-publish-impact.query';
export { GetSupersedeForecastQuery } from './application/plans/get-supersede-forecast.query';
export { ListVersionReferrersQuery, REFERRER_TYPES } from './application/plans/list-version-referrers.query';
export { GetVersionUsageQuery } from './application/plans/get-version-usage.query';
export type { PublishImpactView } from './application/plans/get-plan-publish-impact.query';
export type { SupersedeForecastView } from './application/plans/get-supersede-forecast.query';
export type { VersionReferrerView } from './application/plans/list-version-referrers.query';
export type { VersionUsageView } from './application/plans/get-version-usage.query';
export { CheckPlanPublishQuery } from './application/plans/check-plan-publish.query';
export type { PublishCheckView } from './application/plans/check-plan-publish.query';
export { RepublishPlansCommand, REPUBLISH_MAX_PLANS } from './application/plans/republish-plans.command';
export type { RepublishOutcome } from './application/plans/republish-plans.command';
export { ListPlansQuery } from './application/plans/list-plans.query';
export type { PlanListView } from './application/plans/list-plans.query';
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
export { type SubscriptionInput, CreateSubscriptionCommand } from './application/subscriptions/create-subscription.command';
export { CancelSubscriptionCommand } from './application/subscriptions/cancel-subscription.command';
export {
  type MigrateInput,
  type MigrationResultView,
  MigratePlanCommand,
} from './application/plan-migrations/migrate-plan.command';
export { CancelMigrationCommand } from './application/plan-migrations/cancel-migration.command';
export type { VersionRefView, SubscriptionView } from './application/subscriptions/subscription.view';
export { GetSubscriptionQuery } from './application/subscriptions/get-subscription.query';
export { GetSubscriptionsQuery } from './application/subscriptions/get-subscriptions.query';
export { type SubscriptionFilters, ListSubscriptionsQuery } from './application/subscriptions/list-subscriptions.query';
export { type MigrationView, GetMigrationQuery } from './application/plan-migrations/get-migration.query';
export {
  type MigrationOutcomeView,
  ListMigrationOutcomesQuery,
} from './application/plan-migrations/list-migration-outcomes.query';
export {
  MigrationRunner,
  MIGRATION_RUN_JOB,
  MIGRATION_START_JOB,
  MIGRATION_BATCH_SIZE,
  MIGRATION_BATCHES_PER_RUN,
} from './application/plan-migrations/migration-runner';
export { MIGRATION_MODES, PRORATION_STRATEGIES, OUTCOME_STATUSES, SKIP_REASONS } from './domain/plan-migration';
export { PLAN_TRACK_MODES, VERSION_CHANGE_STRATEGIES } from './domain/subscription';
export { catalogMigrations } from './infrastructure/migrations';
export { CatalogErrors } from './domain/catalog-errors';

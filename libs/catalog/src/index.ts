export * from './catalog.module';
export * from './application/catalog.commands';
export * from './application/catalog.queries';
export type * from './application/catalog.views';
export { CostCascades, CASCADE_RUN_JOB, CASCADE_TASK_JOB } from './application/cost-cascades';
export { ProductReleases, FIRE_PRODUCT_RELEASE_JOB } from './application/product-releases';
export { EvaluateFormulaQuery } from './application/evaluate-formula';

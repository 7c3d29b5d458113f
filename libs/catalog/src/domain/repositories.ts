import { Change } from './change';
import { OrgCost } from './org-cost';
import { Plan } from './plan';
import { MaterializedCost, Product, ProductContent } from './product';

export interface TenantKey {
  organizationId: string;
  workspaceId: string;
}

export abstract class ProductRepository {
  /** Loads and row-locks the product with its head, draft, queue, their content and its PRODUCT costs. */
  abstract lock(tenant: TenantKey, productId: string): Promise<Product | undefined>;
  /** Writes the product and everything its aggregate changed, in a safe order. */
  abstract save(product: Product): Promise<void>;
  /** Whether a version of this product exists at all (archived ones included). */
  abstract versionExists(tenant: TenantKey, productId: string, versionId: string): Promise<boolean>;
  /** A version's content (price formula and PRODUCT entries), read without the aggregate. */
  abstract headContent(tenant: TenantKey, versionId: string): Promise<ProductContent>;
  /** What a live version resolved at go-live: its unit price and every materialized row. */
  abstract materializedVersion(
    tenant: TenantKey,
    versionId: string,
  ): Promise<{ unitPrice: string | null; costs: MaterializedCost[] }>;
  /** The product owning a PRODUCT cost, or undefined. */
  abstract ownerOfCost(tenant: TenantKey, costId: string): Promise<string | undefined>;
}

export abstract class OrgCostRepository {
  abstract lock(tenant: TenantKey, costId: string): Promise<OrgCost | undefined>;
  abstract save(cost: OrgCost): Promise<void>;
  /** The newest ORG cost ever created with this key (model §9.1). */
  abstract newestWithKey(tenant: TenantKey, key: string): Promise<string | undefined>;
}

export abstract class ChangeRepository {
  abstract lock(tenant: TenantKey, changeId: string): Promise<Change | undefined>;
  abstract save(change: Change): Promise<void>;
  /** Several pending changes (a canceled queue), by id. */
  abstract lockMany(tenant: TenantKey, changeIds: readonly string[]): Promise<Change[]>;
}

export abstract class PlanRepository {
  /** Loads and row-locks a plan (not deleted) with its head, draft, queue, their content and its tracking rows. */
  abstract lock(tenant: TenantKey, planId: string): Promise<Plan | undefined>;
  /** Writes the plan and what changed; with an expected_version checked, a version-checked write (409 CONFLICT when stale). */
  abstract save(plan: Plan): Promise<void>;
  abstract versionExists(tenant: TenantKey, planId: string, versionId: string): Promise<boolean>;
}

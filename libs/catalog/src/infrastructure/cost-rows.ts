import { SqlWrite } from '@app/shared-kernel';
import { CostDisplay, CostRevision } from '../domain/cost-value';

interface TenantValues {
  organizationId: string;
  workspaceId: string;
}

export interface CostRowInput {
  id: string;
  scope: 'ORG' | 'PRODUCT';
  productId: string | null;
  key: string;
  state: string;
  display: CostDisplay;
  currentRevisionNo: number;
  createdAt: Date;
  updatedAt: Date;
  retiredAt: Date | null;
}

export function costUpsert(tenant: TenantValues, cost: CostRowInput): SqlWrite {
  return {
    text: `INSERT INTO costs (organization_id, workspace_id, id, scope, product_id, key, state, description, metadata, translations,
             requires_continuous_coverage, current_revision_no, created_at, updated_at, retired_at)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)
           ON CONFLICT (organization_id, workspace_id, id) DO UPDATE SET state = EXCLUDED.state, description = EXCLUDED.description,
             metadata = EXCLUDED.metadata, translations = EXCLUDED.translations,
             requires_continuous_coverage = EXCLUDED.requires_continuous_coverage,
             current_revision_no = EXCLUDED.current_revision_no, updated_at = EXCLUDED.updated_at, retired_at = EXCLUDED.retired_at`,
    values: [
      tenant.organizationId,
      tenant.workspaceId,
      cost.id,
      cost.scope,
      cost.productId,
      cost.key,
      cost.state,
      cost.display.description,
      JSON.stringify(cost.display.metadata),
      JSON.stringify(cost.display.translations),
      cost.display.requiresContinuousCoverage,
      cost.currentRevisionNo,
      cost.createdAt,
      cost.updatedAt,
      cost.retiredAt,
    ],
  };
}

export function costRevisionInsert(tenant: TenantValues, revision: CostRevision): SqlWrite {
  return {
    text: `INSERT INTO cost_revisions (organization_id, workspace_id, cost_id, revision_no, id, kind, amount, expression, "references",
             effective_at, created_by, created_at)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`,
    values: [
      tenant.organizationId,
      tenant.workspaceId,
      revision.costId,
      revision.revisionNo,
      revision.id,
      revision.kind,
      revision.value?.amount ?? null,
      revision.value?.expression ?? null,
      revision.value?.references ?? [],
      revision.effectiveAt,
      JSON.stringify(revision.createdBy),
      revision.createdAt,
    ],
  };
}

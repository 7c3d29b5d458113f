import { TransactionHost } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { Injectable } from '@nestjs/common';
import { isUuid, preparedQuery } from '@app/shared-kernel';
import { OrgCost } from '../domain/org-cost';
import { OrgCostRepository, TenantKey } from '../domain/repositories';
import { costRevisionInsert, costUpsert } from './cost-rows';

interface OrgCostRow {
  id: string;
  key: string;
  state: 'active' | 'retired';
  description: string | null;
  metadata: Record<string, unknown>;
  translations: Record<string, unknown>;
  requires_continuous_coverage: boolean;
  current_revision_no: number;
  created_at: Date;
  updated_at: Date;
  retired_at: Date | null;
}

@Injectable()
export class TypeOrmOrgCostRepository extends OrgCostRepository {
  constructor(private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>) {
    super();
  }

  async lock(tenant: TenantKey, costId: string): Promise<OrgCost | undefined> {
    if (!isUuid(costId)) return undefined;
    const [row] = await preparedQuery<OrgCostRow>(
      this.txHost.tx,
      `SELECT id, key, state, description, metadata, translations, requires_continuous_coverage, current_revision_no,
              created_at, updated_at, retired_at
         FROM costs WHERE organization_id = $1 AND workspace_id = $2 AND id = $3 AND scope = 'ORG' FOR UPDATE`,
      [tenant.organizationId, tenant.workspaceId, costId],
    );
    if (!row) return undefined;
    return OrgCost.restore({
      ...tenant,
      id: row.id,
      key: row.key,
      state: row.state,
      display: {
        description: row.description,
        metadata: row.metadata,
        translations: row.translations,
        requiresContinuousCoverage: row.requires_continuous_coverage,
      },
      currentRevisionNo: row.current_revision_no,
      createdAt: row.created_at,
      updatedAt: row.updated_at,
      retiredAt: row.retired_at,
    });
  }

  async save(cost: OrgCost): Promise<void> {
    const s = cost.snapshot;
    const tenant = { organizationId: s.organizationId, workspaceId: s.workspaceId };
    for (const write of [
      costUpsert(tenant, { ...s, scope: 'ORG', productId: null }),
      ...cost.newRevisions.map((revision) => costRevisionInsert(tenant, revision)),
    ]) {
      await preparedQuery(this.txHost.tx, write.text, [...write.values]);
    }
  }

  async newestWithKey(tenant: TenantKey, key: string): Promise<string | undefined> {
    const [row] = await preparedQuery<{ id: string }>(
      this.txHost.tx,
      `SELECT id FROM costs WHERE organization_id = $1 AND workspace_id = $2 AND scope = 'ORG' AND key = $3
        ORDER BY created_at DESC, id DESC LIMIT 1`,
      [tenant.organizationId, tenant.workspaceId, key],
    );
    return row?.id;
  }
}

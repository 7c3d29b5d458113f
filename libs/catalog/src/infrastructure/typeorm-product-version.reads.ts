import { TransactionHost } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { Injectable } from '@nestjs/common';
import { Actor } from '@app/shared-kernel';
import { VersionReadRow } from '../application/products/product-reads';
import { ProductVersionReads } from '../application/products/product-version-reads';
import { VERSION_COLUMNS } from './version-rows';

/** Its subqueries name the organization and workspace by the caller's $1 and $2: Citus routes a correlated one to one shard only so. */
const VERSION_SELECT = `
  SELECT ${VERSION_COLUMNS.map((column) => `v.${column}`).join(', ')}, v.product_id, v.price_expression, v.unit_price::text AS unit_price, v.not_before,
         CASE WHEN v.status = 'scheduled' THEN (SELECT count(*) FROM product_versions q WHERE q.organization_id = $1
           AND q.workspace_id = $2 AND q.product_id = v.product_id AND q.status = 'scheduled' AND q.scheduled_for <= v.scheduled_for) END AS rank,
         coalesce((SELECT json_agg(json_build_object('key', e.key, 'cost_id', e.cost_id, 'scope', e.scope, 'revision', e.revision_no,
                     'kind', e.kind, 'expression', e.expression, 'value', e.value::text) ORDER BY e.scope, e.key)
                     FROM product_version_costs e WHERE e.organization_id = $1 AND e.workspace_id = $2
                      AND e.product_version_id = v.id), '[]') AS costs
    FROM product_versions v`;

@Injectable()
export class TypeOrmProductVersionReads extends ProductVersionReads {
  constructor(private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>) {
    super();
  }

  async find(actor: Actor, versionId: string): Promise<VersionReadRow | undefined> {
    const [row]: VersionReadRow[] = await this.txHost.tx.query(
      `${VERSION_SELECT} WHERE v.organization_id = $1 AND v.workspace_id = $2 AND v.id = $3`,
      [actor.organizationId, actor.workspaceId, versionId],
    );
    return row;
  }

  list(actor: Actor, productId: string, after: unknown[] | undefined, limit: number): Promise<VersionReadRow[]> {
    return this.txHost.tx.query(
      `${VERSION_SELECT} WHERE v.organization_id = $1 AND v.workspace_id = $2 AND v.product_id = $3
          AND ($4::int IS NULL OR v.version < $4) ORDER BY v.version DESC LIMIT $5`,
      [actor.organizationId, actor.workspaceId, productId, after?.[0] ?? null, limit],
    );
  }

  draftWithBase(actor: Actor, ids: string[], draftVersionId: string): Promise<VersionReadRow[]> {
    return this.txHost.tx.query(
      `${VERSION_SELECT} WHERE v.organization_id = $1 AND v.workspace_id = $2 AND (v.id = ANY($3::uuid[])
         OR v.id = (SELECT base_version_id FROM product_versions WHERE organization_id = $1 AND workspace_id = $2 AND id = $4))`,
      [actor.organizationId, actor.workspaceId, ids, draftVersionId],
    );
  }
}

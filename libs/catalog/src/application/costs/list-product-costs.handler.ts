import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { Actor, CursorCodec, isUuid, keysetPage, Page } from '@app/shared-kernel';
import { TransactionHost } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { catalogNotFound } from '../../domain/catalog-errors';
import { ListProductCostsQuery } from './list-product-costs.query';
import { CostView } from './cost.view';
import { CostReadRow, costView, CostReader } from './cost-reader';

@QueryHandler(ListProductCostsQuery)
export class ListProductCostsHandler implements IQueryHandler<ListProductCostsQuery> {
  constructor(
    private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>,
    private readonly costs: CostReader,
    private readonly cursors: CursorCodec,
  ) {}

  async execute({ actor, productId, view, limit, cursor }: ListProductCostsQuery): Promise<Page<CostView>> {
    const [product]: { head_version_id: string | null; draft_version_id: string | null }[] = isUuid(productId)
      ? await this.txHost.tx.query(
          `SELECT head_version_id, draft_version_id FROM products WHERE organization_id = $1 AND workspace_id = $2 AND id = $3`,
          [actor.organizationId, actor.workspaceId, productId],
        )
      : [];
    if (!product) throw catalogNotFound(undefined, 'product');
    if ('productVersionId' in view) return this.versionCosts(actor, productId, view.productVersionId, limit, cursor);
    // Which PRODUCT costs a view lists: default, those in the head or the draft; head and draft, theirs only.
    const versions = {
      default: [product.head_version_id, product.draft_version_id],
      head: [product.head_version_id],
      draft: [product.draft_version_id ?? product.head_version_id],
    }[view.view].filter((id): id is string => id !== null);
    const listed: string[] = versions.length
      ? (
          await this.txHost.tx.query(
            `SELECT DISTINCT cost_id FROM product_version_costs
              WHERE organization_id = $1 AND workspace_id = $2 AND product_version_id = ANY($3::uuid[]) AND scope = 'PRODUCT'`,
            [actor.organizationId, actor.workspaceId, versions],
          )
        ).map((row: { cost_id: string }) => row.cost_id)
      : [];
    const page = await keysetPage<CostReadRow>(
      this.cursors,
      { list: 'product_costs', filters: { product_id: productId, view: view.view }, order: 'key:asc' },
      { limit, cursor },
      (after, rows) =>
        this.costs.read(
          actor,
          `c.product_id = $3 AND c.scope = 'PRODUCT' AND c.id = ANY($4::uuid[]) AND ($5::text IS NULL OR (c.key, c.id) > ($5, $6::uuid))`,
          [productId, listed, after?.[0] ?? null, after?.[1] ?? null, rows],
          view.view,
          'ORDER BY c.key, c.id LIMIT $7',
        ),
      (row) => [row.key, row.id],
    );
    return { ...page, data: page.data.map(costView) };
  }

  /** A version's materialized rows (ORG ones included), as it resolved them. */
  private async versionCosts(actor: Actor, productId: string, versionId: string, limit: number, cursor: string | undefined) {
    const [version]: { id: string }[] = isUuid(versionId)
      ? await this.txHost.tx.query(
          `SELECT id FROM product_versions WHERE organization_id = $1 AND workspace_id = $2 AND id = $3 AND product_id = $4`,
          [actor.organizationId, actor.workspaceId, versionId, productId],
        )
      : [];
    if (!version) throw catalogNotFound('product_version_id', 'version');
    const page = await keysetPage<CostReadRow & { row_key: string }>(
      this.cursors,
      { list: 'product_costs', filters: { product_id: productId, product_version_id: versionId }, order: 'key:asc' },
      { limit, cursor },
      (after, rows) =>
        this.txHost.tx.query(
          `SELECT c.id, e.key, e.scope, c.product_id, c.state, c.description, c.metadata, c.translations, c.requires_continuous_coverage,
                  c.created_at, c.updated_at, r.revision_no, r.amount::text AS amount, r.expression, r.effective_at, e.value::text AS value,
                  CASE WHEN e.scope = 'PRODUCT' THEN true END AS released, NULL AS pending, NULL AS cascade_run_id, e.scope || ':' || e.key AS row_key
             FROM product_version_costs e
             JOIN costs c ON c.organization_id = e.organization_id AND c.workspace_id = e.workspace_id AND c.id = e.cost_id
             JOIN cost_revisions r ON r.organization_id = e.organization_id AND r.workspace_id = e.workspace_id AND r.cost_id = e.cost_id
              AND r.revision_no = e.revision_no
            WHERE e.organization_id = $1 AND e.workspace_id = $2 AND e.product_version_id = $3 AND ($4::text IS NULL OR e.scope || ':' || e.key > $4)
            ORDER BY e.scope || ':' || e.key LIMIT $5`,
          [actor.organizationId, actor.workspaceId, versionId, after?.[0] ?? null, rows],
        ),
      (row) => [row.row_key],
    );
    return { ...page, data: page.data.map(costView) };
  }
}

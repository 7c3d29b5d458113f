import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { Actor, CursorCodec, DomainError, isUuid, keysetPage, newestFirstPosition, Page } from '@app/shared-kernel';
import { TransactionHost } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { EntityManager } from 'typeorm';
import { catalogNotFound } from '../domain/catalog-errors';
import { VERSION_COLUMNS, VersionRow } from '../infrastructure/version-rows';
import {
  GetProductDraftQuery,
  GetProductQuery,
  GetProductVersionQuery,
  ListProductsQuery,
  ListProductVersionsQuery,
} from './catalog.queries';
import { MaterializedCostView, ProductDraftView, ProductVersionView, ProductView, VersionLifecycleView } from './catalog.views';

interface ProductReadRow {
  id: string;
  name: string;
  description: string | null;
  metadata: Record<string, unknown>;
  status: ProductView['status'];
  head_version_id: string | null;
  head_version: number | null;
  unit_price: string | null;
  draft_version_id: string | null;
  draft_version: number | null;
  price_expression: string | null;
  next_release_at: Date | null;
  published_at: Date | null;
  archived_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

const PRODUCT_SELECT = `
  SELECT p.id, p.name, p.description, p.metadata, p.status, p.head_version_id, h.version AS head_version, h.unit_price::text AS unit_price,
         p.draft_version_id, d.version AS draft_version, coalesce(d.price_expression, CASE WHEN d.id IS NULL THEN h.price_expression END) AS price_expression,
         p.next_release_at, p.published_at, p.archived_at, p.created_at, p.updated_at
    FROM products p
    LEFT JOIN product_versions h ON h.organization_id = p.organization_id AND h.workspace_id = p.workspace_id AND h.id = p.head_version_id
    LEFT JOIN product_versions d ON d.organization_id = p.organization_id AND d.workspace_id = p.workspace_id AND d.id = p.draft_version_id`;

function productView(row: ProductReadRow): ProductView {
  return {
    object: 'product',
    id: row.id,
    name: row.name,
    description: row.description,
    metadata: row.metadata,
    status: row.status,
    price_expression: row.price_expression,
    unit_price: row.unit_price,
    version: row.head_version ?? 1,
    live_version: row.head_version_id ? { id: row.head_version_id, version: row.head_version! } : null,
    draft_version: row.draft_version_id ? { id: row.draft_version_id, version: row.draft_version! } : null,
    has_scheduled_version: row.next_release_at !== null,
    next_release_at: row.next_release_at,
    published_at: row.published_at,
    archived_at: row.archived_at,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

export function lifecycleView(row: VersionRow & { rank: number | null }): VersionLifecycleView {
  return {
    id: row.id,
    version: row.version,
    status: row.status,
    archived_reason: row.archived_reason,
    origin: row.origin,
    base_version_id: row.base_version_id,
    change_id: row.change_id,
    scheduled_change_id: row.status === 'scheduled' ? row.change_id : null,
    scheduled_for: row.scheduled_for,
    rank: row.status === 'scheduled' ? Number(row.rank) : null,
    effective_from: row.effective_from,
    effective_to: row.effective_to,
    published_at: row.published_at,
    release_name: row.release_name,
    release_note: row.release_note,
    cascade_source: row.cascade_source,
    created_by: row.created_by,
    created_at: row.created_at,
    error: row.error_code ? { code: row.error_code, message: row.error_message ?? '', details: row.error_details ?? {} } : null,
  };
}

@QueryHandler(GetProductQuery)
export class GetProductHandler implements IQueryHandler<GetProductQuery> {
  constructor(private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>) {}

  async execute({ actor, productId }: GetProductQuery): Promise<ProductView> {
    const [row]: ProductReadRow[] = isUuid(productId)
      ? await this.txHost.tx.query(`${PRODUCT_SELECT} WHERE p.organization_id = $1 AND p.workspace_id = $2 AND p.id = $3`, [
          actor.organizationId,
          actor.workspaceId,
          productId,
        ])
      : [];
    if (!row) throw catalogNotFound(undefined, 'product');
    return productView(row);
  }
}

@QueryHandler(ListProductsQuery)
export class ListProductsHandler implements IQueryHandler<ListProductsQuery> {
  constructor(
    private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>,
    private readonly cursors: CursorCodec,
  ) {}

  async execute({ actor, limit, cursor }: ListProductsQuery): Promise<Page<ProductView>> {
    const page = await keysetPage<ProductReadRow>(
      this.cursors,
      { list: 'products', filters: {}, order: 'created_at:desc' },
      { limit, cursor },
      (after, rows) =>
        this.txHost.tx.query(
          `${PRODUCT_SELECT} WHERE p.organization_id = $1 AND p.workspace_id = $2
              AND ($3::timestamptz IS NULL OR (p.created_at, p.id) < ($3, $4::uuid))
            ORDER BY p.created_at DESC, p.id DESC LIMIT $5`,
          [actor.organizationId, actor.workspaceId, after?.[0] ?? null, after?.[1] ?? null, rows],
        ),
      newestFirstPosition,
    );
    return { ...page, data: page.data.map(productView) };
  }
}

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

type VersionReadRow = VersionRow & {
  product_id: string;
  price_expression: string | null;
  unit_price: string | null;
  not_before: Date | null;
  rank: number | null;
  costs: MaterializedCostView[];
};

function versionView(row: VersionReadRow): ProductVersionView {
  return {
    object: 'product_version',
    ...lifecycleView(row),
    product_id: row.product_id,
    price_expression: row.price_expression,
    unit_price: row.unit_price,
    not_before: row.not_before,
    costs: row.costs,
  };
}

async function assertProduct(manager: EntityManager, actor: Actor, productId: string) {
  const [product]: { head_version_id: string | null; draft_version_id: string | null }[] = isUuid(productId)
    ? await manager.query(
        `SELECT head_version_id, draft_version_id FROM products WHERE organization_id = $1 AND workspace_id = $2 AND id = $3`,
        [actor.organizationId, actor.workspaceId, productId],
      )
    : [];
  if (!product) throw catalogNotFound(undefined, 'product');
  return product;
}

@QueryHandler(ListProductVersionsQuery)
export class ListProductVersionsHandler implements IQueryHandler<ListProductVersionsQuery> {
  constructor(
    private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>,
    private readonly cursors: CursorCodec,
  ) {}

  async execute({ actor, productId, limit, cursor }: ListProductVersionsQuery): Promise<Page<ProductVersionView>> {
    await assertProduct(this.txHost.tx, actor, productId);
    const page = await keysetPage<VersionReadRow>(
      this.cursors,
      { list: 'product_versions', filters: { product_id: productId }, order: 'version:desc' },
      { limit, cursor },
      (after, rows) =>
        this.txHost.tx.query(
          `${VERSION_SELECT} WHERE v.organization_id = $1 AND v.workspace_id = $2 AND v.product_id = $3
              AND ($4::int IS NULL OR v.version < $4) ORDER BY v.version DESC LIMIT $5`,
          [actor.organizationId, actor.workspaceId, productId, after?.[0] ?? null, rows],
        ),
      (row) => [row.version],
    );
    return { ...page, data: page.data.map(versionView) };
  }
}

@QueryHandler(GetProductVersionQuery)
export class GetProductVersionHandler implements IQueryHandler<GetProductVersionQuery> {
  constructor(private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>) {}

  async execute({ actor, versionId }: GetProductVersionQuery): Promise<ProductVersionView> {
    const [row]: VersionReadRow[] = isUuid(versionId)
      ? await this.txHost.tx.query(`${VERSION_SELECT} WHERE v.organization_id = $1 AND v.workspace_id = $2 AND v.id = $3`, [
          actor.organizationId,
          actor.workspaceId,
          versionId,
        ])
      : [];
    if (!row) throw catalogNotFound(undefined, 'version');
    return versionView(row);
  }
}

@QueryHandler(GetProductDraftQuery)
export class GetProductDraftHandler implements IQueryHandler<GetProductDraftQuery> {
  constructor(private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>) {}

  /** The staged draft with its diff from its base; 404 STAGED_DRAFT_NOT_FOUND is a state, not an error of the caller. */
  async execute({ actor, productId }: GetProductDraftQuery): Promise<ProductDraftView> {
    const product = await assertProduct(this.txHost.tx, actor, productId);
    const ids = [product.draft_version_id, product.head_version_id].filter((id): id is string => id !== null);
    const rows: VersionReadRow[] = product.draft_version_id
      ? await this.txHost.tx.query(
          `${VERSION_SELECT} WHERE v.organization_id = $1 AND v.workspace_id = $2 AND (v.id = ANY($3::uuid[])
             OR v.id = (SELECT base_version_id FROM product_versions WHERE organization_id = $1 AND workspace_id = $2 AND id = $4))`,
          [actor.organizationId, actor.workspaceId, ids, product.draft_version_id],
        )
      : [];
    const draft = rows.find((row) => row.id === product.draft_version_id);
    if (!draft) throw new DomainError('not_found', 'STAGED_DRAFT_NOT_FOUND', 'This product has no staged draft.');
    const base = rows.find((row) => row.id === draft.base_version_id);
    const head = rows.find((row) => row.id === product.head_version_id);
    return {
      object: 'staged_draft',
      id: draft.id,
      product_id: productId,
      version: draft.version,
      opened_at: draft.created_at,
      updated_at: draft.touched_at,
      base_version_id: draft.base_version_id,
      base_version: base?.version ?? null,
      head_version: head?.version ?? null,
      not_before: draft.not_before,
      price_expression: draft.price_expression,
      summary: draftSummary(draft, base),
    };
  }
}

/** The diff from the base: what publishing this draft would change. */
function draftSummary(draft: VersionReadRow, base: VersionReadRow | undefined): ProductDraftView['summary'] {
  const own = (row: VersionReadRow | undefined) =>
    new Map((row?.costs ?? []).filter((cost) => cost.scope === 'PRODUCT').map((cost) => [cost.cost_id, cost]));
  const before = own(base);
  const after = own(draft);
  return {
    fields_changed: (base?.price_expression ?? null) !== draft.price_expression ? ['price_expression'] : [],
    costs_added: [...after.values()].filter((cost) => !before.has(cost.cost_id)).map((cost) => cost.key),
    costs_removed: [...before.values()].filter((cost) => !after.has(cost.cost_id)).map((cost) => cost.key),
    cost_values_changed: [...after.values()]
      .filter((cost) => before.has(cost.cost_id) && before.get(cost.cost_id)!.revision !== cost.revision)
      .map((cost) => cost.key),
  };
}

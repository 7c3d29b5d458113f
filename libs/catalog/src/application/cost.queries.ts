import { Injectable } from '@nestjs/common';
import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { Actor, Clock, CursorCodec, DomainError, isUuid, keysetPage, newestFirstPosition, Page } from '@app/shared-kernel';
import { TransactionHost } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { catalogNotFound } from '../domain/catalog-errors';
import { evaluateExpression, formulaReferences, parseFormula } from '../domain/formula';
import { GetCostQuery, ListCostConsumersQuery, ListCostsQuery, ListProductCostsQuery } from './catalog.queries';
import { ConsumerView, CostView } from './catalog.views';
import { Pricing } from './pricing';

/** A cost row with the revision this read shows and, for ORG costs, the next pending one. */
interface CostReadRow {
  id: string;
  key: string;
  scope: 'ORG' | 'PRODUCT';
  product_id: string | null;
  state: CostView['status'];
  description: string | null;
  metadata: Record<string, unknown>;
  translations: Record<string, unknown>;
  requires_continuous_coverage: boolean;
  created_at: Date;
  updated_at: Date;
  revision_no: number;
  amount: string | null;
  expression: string | null;
  effective_at: Date;
  value: string | null;
  released: boolean | null;
  pending: { revision_no: number; amount: string | null; expression: string | null; effective_at: string } | null;
  cascade_run_id: string | null;
}

/**
 * Which revision each cost shows. ORG: the value in effect at $now (and the next future one).
 * PRODUCT, by view: `default` the head's where the head carries it, else the working draft's;
 * `head` the head's; `draft` the draft's (the head's when no draft is open).
 */
function costSelect(view: 'default' | 'draft' | 'head'): string {
  const head = `(SELECT e.revision_no FROM product_version_costs e WHERE e.organization_id = c.organization_id
                   AND e.workspace_id = c.workspace_id AND e.product_version_id = p.head_version_id AND e.cost_id = c.id AND e.scope = 'PRODUCT')`;
  const draft = `(SELECT e.revision_no FROM product_version_costs e WHERE e.organization_id = c.organization_id
                   AND e.workspace_id = c.workspace_id AND e.product_version_id = p.draft_version_id AND e.cost_id = c.id AND e.scope = 'PRODUCT')`;
  const productRevision = {
    default: `coalesce(${head}, ${draft}, c.current_revision_no)`,
    head: head,
    draft: `CASE WHEN p.draft_version_id IS NULL THEN ${head} ELSE ${draft} END`,
  }[view];
  return `
    SELECT c.id, c.key, c.scope, c.product_id, c.state, c.description, c.metadata, c.translations, c.requires_continuous_coverage,
           c.created_at, c.updated_at, r.revision_no, r.amount::text AS amount, r.expression, r.effective_at, NULL::text AS value,
           CASE WHEN c.scope = 'PRODUCT' THEN ${head} IS NOT NULL END AS released,
           CASE WHEN c.scope = 'ORG' THEN (
             SELECT json_build_object('revision_no', f.revision_no, 'amount', f.amount::text, 'expression', f.expression, 'effective_at', f.effective_at)
               FROM cost_revisions f WHERE f.organization_id = c.organization_id AND f.workspace_id = c.workspace_id AND f.cost_id = c.id
                AND f.kind = 'value' AND f.effective_at > $3 ORDER BY f.effective_at, f.revision_no LIMIT 1) END AS pending,
           CASE WHEN c.scope = 'ORG' THEN (
             SELECT k.id FROM cascade_runs k WHERE k.organization_id = c.organization_id AND k.workspace_id = c.workspace_id
                AND k.source_id = c.id ORDER BY k.created_at DESC, k.id DESC LIMIT 1) END AS cascade_run_id
      FROM costs c
      LEFT JOIN products p ON p.organization_id = c.organization_id AND p.workspace_id = c.workspace_id AND p.id = c.product_id
      LEFT JOIN LATERAL (
        SELECT v.revision_no, v.amount, v.expression, v.effective_at FROM cost_revisions v
         WHERE v.organization_id = c.organization_id AND v.workspace_id = c.workspace_id AND v.cost_id = c.id AND v.kind = 'value'
           AND CASE WHEN c.scope = 'ORG' THEN v.effective_at <= $3 ELSE v.revision_no = ${productRevision} END
         ORDER BY v.effective_at DESC, v.revision_no DESC LIMIT 1) r ON true`;
}

export function costView(row: CostReadRow): CostView {
  return {
    object: 'cost',
    id: row.id,
    key: row.key,
    scope: row.scope,
    product_id: row.product_id,
    amount: row.amount,
    expression: row.expression,
    value: row.value,
    revision: row.revision_no,
    effective_at: row.effective_at,
    pending_value: row.pending && {
      amount: row.pending.amount,
      expression: row.pending.expression,
      effective_at: new Date(row.pending.effective_at),
      revision: row.pending.revision_no,
    },
    released: row.released,
    description: row.description,
    metadata: row.metadata,
    translations: row.translations,
    requires_continuous_coverage: row.requires_continuous_coverage,
    status: row.state,
    cascade_run_id: row.cascade_run_id,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

/** Reads cost rows and evaluates the expressions among them (a page at most). */
@Injectable()
export class CostReader {
  constructor(
    private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>,
    private readonly pricing: Pricing,
    private readonly clock: Clock,
  ) {}

  async read(actor: Actor, where: string, params: unknown[], view: 'default' | 'draft' | 'head', tail = ''): Promise<CostReadRow[]> {
    const rows: CostReadRow[] = await this.txHost.tx.query(`${costSelect(view)} WHERE c.organization_id = $1 AND c.workspace_id = $2 AND ${where} ${tail}`, [
      actor.organizationId,
      actor.workspaceId,
      this.clock.now(),
      ...params,
    ]);
    return Promise.all(rows.map((row) => this.withValue(actor, row)));
  }

  private async withValue(actor: Actor, row: CostReadRow): Promise<CostReadRow> {
    if (row.revision_no === null) return row;
    if (row.expression === null) return { ...row, value: row.amount };
    try {
      const now = this.clock.now();
      const references = formulaReferences(parseFormula(row.expression));
      const scope =
        row.scope === 'ORG'
          ? await this.pricing.orgScope(actor, references, now)
          : await this.pricing.productScope(actor, await this.productDraftContent(actor, row.product_id!), now, references);
      return { ...row, value: evaluateExpression(row.expression, scope).value };
    } catch (error) {
      // A value that cannot be evaluated now (a retired reference, a division by zero) reads as null.
      if (error instanceof DomainError) return row;
      throw error;
    }
  }

  private async productDraftContent(actor: Actor, productId: string) {
    const rows: { key: string; cost_id: string; revision_no: number; amount: string | null; expression: string | null; references: string[] }[] =
      await this.txHost.tx.query(
        `SELECT e.key, e.cost_id, e.revision_no, r.amount::text AS amount, r.expression, r."references"
           FROM products p JOIN product_version_costs e ON e.organization_id = p.organization_id AND e.workspace_id = p.workspace_id
            AND e.product_version_id = coalesce(p.draft_version_id, p.head_version_id) AND e.scope = 'PRODUCT'
           JOIN cost_revisions r ON r.organization_id = e.organization_id AND r.workspace_id = e.workspace_id AND r.cost_id = e.cost_id
            AND r.revision_no = e.revision_no
          WHERE p.organization_id = $1 AND p.workspace_id = $2 AND p.id = $3`,
        [actor.organizationId, actor.workspaceId, productId],
      );
    return {
      priceExpression: null,
      notBefore: null,
      entries: rows.map((row) => ({
        key: row.key,
        costId: row.cost_id,
        revisionNo: row.revision_no,
        value:
          row.expression === null
            ? { kind: 'amount' as const, amount: row.amount!, expression: null, references: [] as [] }
            : { kind: 'expression' as const, amount: null, expression: row.expression, references: row.references },
      })),
    };
  }
}

@QueryHandler(GetCostQuery)
export class GetCostHandler implements IQueryHandler<GetCostQuery> {
  constructor(private readonly costs: CostReader) {}

  async execute({ actor, costId }: GetCostQuery): Promise<CostView> {
    if (!isUuid(costId)) throw catalogNotFound(undefined, 'cost');
    const [row] = await this.costs.read(actor, `c.id = $4 AND c.state <> 'retired'`, [costId], 'default');
    if (!row) throw catalogNotFound(undefined, 'cost');
    return costView(row);
  }
}

@QueryHandler(ListCostsQuery)
export class ListCostsHandler implements IQueryHandler<ListCostsQuery> {
  constructor(
    private readonly costs: CostReader,
    private readonly cursors: CursorCodec,
  ) {}

  async execute({ actor, scope, limit, cursor }: ListCostsQuery): Promise<Page<CostView>> {
    const page = await keysetPage<CostReadRow>(
      this.cursors,
      { list: 'costs', filters: { scope: scope ?? null }, order: 'created_at:desc' },
      { limit, cursor },
      (after, rows) =>
        this.costs.read(
          actor,
          `c.state = 'active' AND ($4::text IS NULL OR c.scope = $4) AND ($5::timestamptz IS NULL OR (c.created_at, c.id) < ($5, $6::uuid))`,
          [scope ?? null, after?.[0] ?? null, after?.[1] ?? null, rows],
          'default',
          'ORDER BY c.created_at DESC, c.id DESC LIMIT $7',
        ),
      newestFirstPosition,
    );
    return { ...page, data: page.data.map(costView) };
  }
}

@QueryHandler(ListCostConsumersQuery)
export class ListCostConsumersHandler implements IQueryHandler<ListCostConsumersQuery> {
  constructor(
    private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>,
    private readonly cursors: CursorCodec,
  ) {}

  async execute({ actor, costId, limit, cursor }: ListCostConsumersQuery): Promise<Page<ConsumerView>> {
    const [cost]: { scope: 'ORG' | 'PRODUCT'; product_id: string | null }[] = isUuid(costId)
      ? await this.txHost.tx.query(`SELECT scope, product_id FROM costs WHERE organization_id = $1 AND workspace_id = $2 AND id = $3`, [
          actor.organizationId,
          actor.workspaceId,
          costId,
        ])
      : [];
    if (!cost) throw catalogNotFound(undefined, 'cost');
    return keysetPage<ConsumerView>(
      this.cursors,
      { list: 'cost_consumers', filters: { cost_id: costId }, order: 'product_id:asc' },
      { limit, cursor },
      (after, rows) =>
        cost.scope === 'PRODUCT'
          ? this.txHost.tx.query(
              `SELECT p.id AS product_id, v.id AS product_version_id, v.version FROM products p
                 LEFT JOIN product_versions v ON v.organization_id = p.organization_id AND v.workspace_id = p.workspace_id AND v.id = p.head_version_id
                WHERE p.organization_id = $1 AND p.workspace_id = $2 AND p.id = $3 AND ($4::uuid IS NULL OR p.id > $4) LIMIT $5`,
              [actor.organizationId, actor.workspaceId, cost.product_id, after?.[0] ?? null, rows],
            )
          : this.txHost.tx.query(
              `SELECT p.id AS product_id, v.id AS product_version_id, v.version
                 FROM product_version_costs e
                 JOIN product_versions v ON v.organization_id = e.organization_id AND v.workspace_id = e.workspace_id
                  AND v.id = e.product_version_id AND v.status = 'published'
                 JOIN products p ON p.organization_id = v.organization_id AND p.workspace_id = v.workspace_id AND p.id = v.product_id
                  AND p.status = 'active'
                WHERE e.organization_id = $1 AND e.workspace_id = $2 AND e.cost_id = $3 AND ($4::uuid IS NULL OR p.id > $4)
                ORDER BY p.id LIMIT $5`,
              [actor.organizationId, actor.workspaceId, costId, after?.[0] ?? null, rows],
            ),
      (row) => [row.product_id],
    );
  }
}

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
    const page = await keysetPage<CostReadRow>(
      this.cursors,
      { list: 'product_costs', filters: { product_id: productId, view: view.view }, order: 'key:asc' },
      { limit, cursor },
      (after, rows) =>
        this.costs.read(
          actor,
          `c.product_id = $4 AND c.scope = 'PRODUCT' AND EXISTS (SELECT 1 FROM product_version_costs e WHERE e.organization_id = c.organization_id
             AND e.workspace_id = c.workspace_id AND e.cost_id = c.id AND e.product_version_id = ANY($5::uuid[]))
             AND ($6::text IS NULL OR (c.key, c.id) > ($6, $7::uuid))`,
          [productId, versions, after?.[0] ?? null, after?.[1] ?? null, rows],
          view.view,
          'ORDER BY c.key, c.id LIMIT $8',
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

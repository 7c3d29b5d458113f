import { Injectable } from '@nestjs/common';
import { Actor, Clock, DomainError } from '@app/shared-kernel';
import { TransactionHost } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { evaluateExpression, formulaReferences, parseFormula } from '../../domain/formula';
import { CostView } from './cost.view';
import { Pricing } from '../pricing';

/** A cost as stored, before what a read shows of it is looked up. */
interface CostBaseRow {
  id: string;
  key: string;
  scope: 'ORG' | 'PRODUCT';
  product_id: string | null;
  state: CostView['status'];
  description: string | null;
  metadata: Record<string, unknown>;
  translations: Record<string, unknown>;
  requires_continuous_coverage: boolean;
  current_revision_no: number;
  created_at: Date;
  updated_at: Date;
}

/** A cost row with the revision this read shows and, for ORG costs, the next pending one. */
export interface CostReadRow extends Omit<CostBaseRow, 'current_revision_no'> {
  revision_no: number;
  amount: string | null;
  expression: string | null;
  effective_at: Date;
  value: string | null;
  released: boolean | null;
  pending: { revision_no: number; amount: string | null; expression: string | null; effective_at: string } | null;
  cascade_run_id: string | null;
}

interface RevisionRow {
  cost_id: string;
  revision_no: number;
  amount: string | null;
  expression: string | null;
  effective_at: Date;
}

const COST_BASE = `SELECT c.id, c.key, c.scope, c.product_id, c.state, c.description, c.metadata, c.translations,
  c.requires_continuous_coverage, c.current_revision_no, c.created_at, c.updated_at FROM costs c`;

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

  /**
   * A page of costs with the revision each shows. The page is one indexed query; what it shows is
   * read by id in a few batched lookups (never a join whose plan depends on fresh statistics).
   * `where` and `tail` number their parameters from $3 ($1, $2: the tenant).
   */
  async read(
    actor: Actor,
    where: string,
    params: unknown[],
    view: 'default' | 'draft' | 'head',
    tail = '',
  ): Promise<CostReadRow[]> {
    const base: CostBaseRow[] = await this.txHost.tx.query(
      `${COST_BASE} WHERE c.organization_id = $1 AND c.workspace_id = $2 AND ${where} ${tail}`,
      [actor.organizationId, actor.workspaceId, ...params],
    );
    if (base.length === 0) return [];
    const now = this.clock.now();
    const shown = new Map<string, RevisionRow>();
    const pending = new Map<string, RevisionRow>();
    const runs = new Map<string, string>();
    const released = new Map<string, boolean>();
    const orgIds = base.filter((row) => row.scope === 'ORG').map((row) => row.id);
    if (orgIds.length > 0) {
      for (const row of await this.lookup<RevisionRow>(
        `SELECT DISTINCT ON (cost_id) cost_id, revision_no, amount::text AS amount, expression, effective_at FROM cost_revisions
          WHERE organization_id = $1 AND workspace_id = $2 AND cost_id = ANY($3::uuid[]) AND kind = 'value' AND effective_at <= $4
          ORDER BY cost_id, effective_at DESC, revision_no DESC`,
        actor,
        [orgIds, now],
      ))
        shown.set(row.cost_id, row);
      for (const row of await this.lookup<RevisionRow>(
        `SELECT DISTINCT ON (cost_id) cost_id, revision_no, amount::text AS amount, expression, effective_at FROM cost_revisions
          WHERE organization_id = $1 AND workspace_id = $2 AND cost_id = ANY($3::uuid[]) AND kind = 'value' AND effective_at > $4
          ORDER BY cost_id, effective_at, revision_no`,
        actor,
        [orgIds, now],
      ))
        pending.set(row.cost_id, row);
      for (const row of await this.lookup<{ source_id: string; id: string }>(
        `SELECT DISTINCT ON (source_id) source_id, id FROM cascade_runs
          WHERE organization_id = $1 AND workspace_id = $2 AND source_id = ANY($3::uuid[]) ORDER BY source_id, created_at DESC, id DESC`,
        actor,
        [orgIds],
      ))
        runs.set(row.source_id, row.id);
    }
    const productCosts = base.filter((row) => row.scope === 'PRODUCT');
    if (productCosts.length > 0) {
      const chosen = await this.productRevisions(actor, productCosts, view);
      for (const [costId, choice] of chosen) released.set(costId, choice.released);
      const pairs = [...chosen].filter(([, choice]) => choice.revisionNo !== null);
      for (const row of await this.lookup<RevisionRow>(
        `SELECT r.cost_id, r.revision_no, r.amount::text AS amount, r.expression, r.effective_at
           FROM unnest($3::uuid[], $4::int[]) AS w(cost_id, revision_no)
           JOIN cost_revisions r ON r.organization_id = $1 AND r.workspace_id = $2 AND r.cost_id = w.cost_id AND r.revision_no = w.revision_no`,
        actor,
        [pairs.map(([costId]) => costId), pairs.map(([, choice]) => choice.revisionNo)],
      ))
        shown.set(row.cost_id, row);
    }
    const rows = base.map((row): CostReadRow => ({
      ...row,
      revision_no: shown.get(row.id)?.revision_no ?? (null as unknown as number),
      amount: shown.get(row.id)?.amount ?? null,
      expression: shown.get(row.id)?.expression ?? null,
      effective_at: shown.get(row.id)?.effective_at ?? (null as unknown as Date),
      value: null,
      released: row.scope === 'PRODUCT' ? (released.get(row.id) ?? false) : null,
      pending: pending.has(row.id)
        ? {
            revision_no: pending.get(row.id)!.revision_no,
            amount: pending.get(row.id)!.amount,
            expression: pending.get(row.id)!.expression,
            effective_at: pending.get(row.id)!.effective_at.toISOString(),
          }
        : null,
      cascade_run_id: runs.get(row.id) ?? null,
    }));
    return Promise.all(rows.map((row) => this.withValue(actor, row)));
  }

  /**
   * Which revision a PRODUCT cost shows, by view: `default` the live version's where it carries
   * the cost, else the working draft's (else the latest); `head` the live one's; `draft` the
   * draft's (the live one's when no draft is open). `released`: the live version carries it.
   */
  private async productRevisions(actor: Actor, costs: CostBaseRow[], view: 'default' | 'draft' | 'head') {
    const products = await this.lookup<{ id: string; head_version_id: string | null; draft_version_id: string | null }>(
      `SELECT id, head_version_id, draft_version_id FROM products WHERE organization_id = $1 AND workspace_id = $2 AND id = ANY($3::uuid[])`,
      actor,
      [[...new Set(costs.map((cost) => cost.product_id!))]],
    );
    const versions = new Map(products.map((product) => [product.id, product]));
    const versionIds = products
      .flatMap((product) => [product.head_version_id, product.draft_version_id])
      .filter((id): id is string => id !== null);
    const entries = versionIds.length
      ? await this.lookup<{ product_version_id: string; cost_id: string; revision_no: number }>(
          `SELECT product_version_id, cost_id, revision_no FROM product_version_costs
            WHERE organization_id = $1 AND workspace_id = $2 AND product_version_id = ANY($3::uuid[]) AND scope = 'PRODUCT' AND cost_id = ANY($4::uuid[])`,
          actor,
          [versionIds, costs.map((cost) => cost.id)],
        )
      : [];
    const revisionIn = (versionId: string | null | undefined, costId: string) =>
      entries.find((entry) => entry.product_version_id === versionId && entry.cost_id === costId)?.revision_no ?? null;
    return new Map(
      costs.map((cost) => {
        const product = versions.get(cost.product_id!);
        const head = revisionIn(product?.head_version_id, cost.id);
        const draft = revisionIn(product?.draft_version_id, cost.id);
        const revisionNo = {
          default: head ?? draft ?? cost.current_revision_no,
          head,
          draft: product?.draft_version_id ? draft : head,
        }[view];
        return [cost.id, { revisionNo, released: head !== null }] as const;
      }),
    );
  }

  private lookup<Row>(text: string, actor: Actor, params: unknown[]): Promise<Row[]> {
    return this.txHost.tx.query(text, [actor.organizationId, actor.workspaceId, ...params]);
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
    const rows: {
      key: string;
      cost_id: string;
      revision_no: number;
      amount: string | null;
      expression: string | null;
      references: string[];
    }[] = await this.txHost.tx.query(
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

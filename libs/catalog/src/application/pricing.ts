import { TransactionHost } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { Injectable } from '@nestjs/common';
import { DomainError, preparedQuery } from '@app/shared-kernel';
import { CatalogErrors } from '../domain/catalog-errors';
import {
  checkKeyExpression,
  evaluateExpression,
  FormulaBinding,
  FormulaEvaluation,
  FormulaScope,
  materializeFormulas,
  parseFormula,
  formulaReferences,
} from '../domain/formula';
import { CostValue } from '../domain/cost-value';
import { Materialization, MaterializedCost, ProductContent } from '../domain/product';
import { TenantKey } from '../domain/repositories';

/** What a resolved key was, carried through an evaluation into its results. */
export interface CostRef {
  costId: string;
  scope: 'ORG' | 'PRODUCT';
  revisionNo: number;
}

interface OrgCostAt {
  key: string;
  cost_id: string;
  revision_no: number;
  amount: string | null;
  expression: string | null;
  references: string[];
}

/** An ORG key standing for an unsaved value (what a cascade preview asks about). */
export interface OrgOverride {
  key: string;
  costId: string;
  value: CostValue;
}

/** A key beyond which no closure can reach (model §3.6: depth 16, 64 keys). */
const MAX_EXPANSION_ROUNDS = 17;

function binding(value: CostValue, ref: CostRef, scope?: FormulaScope<CostRef>): FormulaBinding<CostRef> {
  return value.kind === 'amount'
    ? { kind: 'value', value: value.amount, id: ref.costId, metadata: ref }
    : { kind: 'expression', expression: value.expression, id: ref.costId, metadata: ref, scope };
}

function referencesOf(expression: string | null): string[] {
  if (!expression) return [];
  try {
    return formulaReferences(parseFormula(expression));
  } catch {
    return [];
  }
}

/**
 * Resolves cost keys for formulas (model §3.1): a product's PRODUCT costs shadow the active ORG
 * costs; an ORG cost's own expression sees ORG keys only. ORG values are those in effect at the
 * instant asked for, read once per evaluation.
 */
@Injectable()
export class Pricing {
  constructor(private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>) {}

  /** The active ORG costs reachable from `keys`, with the value revision in effect at `at`. */
  async orgScope(tenant: TenantKey, keys: Iterable<string>, at: Date, override?: OrgOverride): Promise<FormulaScope<CostRef>> {
    const found = new Map<string, OrgCostAt>();
    if (override) {
      found.set(override.key, {
        key: override.key,
        cost_id: override.costId,
        revision_no: 0,
        amount: override.value.amount,
        expression: override.value.expression,
        references: override.value.references,
      });
    }
    let wanted = [...new Set([...keys, ...(override?.value.references ?? [])])].filter((key) => !found.has(key));
    for (let round = 0; round < MAX_EXPANSION_ROUNDS && wanted.length > 0; round += 1) {
      // The lateral names the organization by its parameter: Citus routes the correlated lookup to the
      // organization's shard only so (the outer column is not carried into it).
      const rows = await preparedQuery<OrgCostAt>(
        this.txHost.tx,
        `SELECT c.key, c.id AS cost_id, r.revision_no, r.amount::text AS amount, r.expression, r."references"
           FROM costs c
           CROSS JOIN LATERAL (
             SELECT revision_no, amount, expression, "references" FROM cost_revisions r
              WHERE r.organization_id = $1 AND r.workspace_id = c.workspace_id AND r.cost_id = c.id
                AND r.kind = 'value' AND r.effective_at <= $4
              ORDER BY r.effective_at DESC, r.revision_no DESC LIMIT 1) r
          WHERE c.organization_id = $1 AND c.workspace_id = $2 AND c.scope = 'ORG' AND c.state = 'active' AND c.key = ANY($3::text[])`,
        [tenant.organizationId, tenant.workspaceId, wanted, at],
      );
      for (const row of rows) found.set(row.key, row);
      wanted = [...new Set(rows.flatMap((row) => row.references))].filter((key) => !found.has(key));
    }
    const scope: FormulaScope<CostRef> = {
      lookup: (key) => {
        const row = found.get(key);
        if (!row) return undefined;
        const value: CostValue =
          row.expression === null
            ? { kind: 'amount', amount: row.amount!, expression: null, references: [] }
            : { kind: 'expression', amount: null, expression: row.expression, references: row.references };
        return binding(value, { costId: row.cost_id, scope: 'ORG', revisionNo: row.revision_no }, scope);
      },
    };
    return scope;
  }

  /** A product's scope: its content's PRODUCT costs, then the ORG costs in effect at `at`. */
  async productScope(
    tenant: TenantKey,
    content: ProductContent,
    at: Date,
    extraKeys: string[] = [],
    override?: OrgOverride,
  ): Promise<FormulaScope<CostRef>> {
    const own = new Map(content.entries.map((entry) => [entry.key, entry]));
    const needed = [
      ...referencesOf(content.priceExpression),
      ...content.entries.flatMap((entry) => entry.value.references),
      ...extraKeys,
    ].filter((key) => !own.has(key));
    const org = await this.orgScope(tenant, needed, at, override);
    const scope: FormulaScope<CostRef> = {
      lookup: (key) => {
        const entry = own.get(key);
        if (!entry) return org.lookup(key);
        return binding(entry.value, { costId: entry.costId, scope: 'PRODUCT', revisionNo: entry.revisionNo }, scope);
      },
    };
    return scope;
  }

  /** The save-time check of an ORG cost's expression (parse, resolve, acyclic, evaluate); returns its references. */
  async checkOrgExpression(
    tenant: TenantKey,
    key: string,
    costId: string | undefined,
    expression: string,
    at: Date,
  ): Promise<string[]> {
    const references = formulaReferences(parseFormula(expression));
    const scope = await this.orgScope(tenant, references, at);
    return [...checkKeyExpression(key, expression, scope, { id: costId }).references];
  }

  /** The save-time check of a PRODUCT cost's expression, or of the price formula (`key` null), in the draft's scope. */
  async checkProductExpression(
    tenant: TenantKey,
    content: ProductContent,
    target: { key: string; costId?: string } | null,
    expression: string,
    at: Date,
  ): Promise<string[]> {
    const references = formulaReferences(parseFormula(expression));
    const scope = await this.productScope(tenant, content, at, references);
    if (!target) {
      evaluateExpression(expression, scope);
      return references;
    }
    return [...checkKeyExpression(target.key, expression, scope, { id: target.costId }).references];
  }

  async evaluate(scope: FormulaScope<CostRef>, expression: string): Promise<FormulaEvaluation<CostRef>> {
    return evaluateExpression(expression, scope, { explain: true });
  }

  /**
   * Model §3.3: the price formula and every PRODUCT cost of the content, closed over their
   * references and evaluated at `at`. A refusal becomes PUBLISH_FORMULA_INVALID.
   */
  async materialize(
    tenant: TenantKey,
    content: ProductContent,
    at: Date,
    context: { retiredKeys?: string[]; override?: OrgOverride } = {},
  ): Promise<Materialization> {
    try {
      const scope = await this.productScope(tenant, content, at, [], context.override);
      const result = materializeFormulas(
        { expression: content.priceExpression, keys: content.entries.map((entry) => entry.key) },
        scope,
      );
      const costs = result.keys.map((resolved): MaterializedCost => ({
        key: resolved.key,
        costId: resolved.metadata!.costId,
        scope: resolved.metadata!.scope,
        revisionNo: resolved.metadata!.revisionNo,
        kind: resolved.expression === null ? 'amount' : 'expression',
        expression: resolved.expression,
        value: resolved.value,
      }));
      return { ok: true, unitPrice: result.value, costs };
    } catch (error) {
      if (!(error instanceof DomainError) || !error.code.startsWith('FORMULA_')) throw error;
      return { ok: false, error: publishFormulaInvalid(error, context.retiredKeys) };
    }
  }
}

export function publishFormulaInvalid(cause: DomainError, retiredKeys?: string[]): DomainError {
  const details = cause.details ?? {};
  return CatalogErrors.PUBLISH_FORMULA_INVALID.create(`The price formula cannot be resolved: ${cause.message}`, {
    details: {
      reason: cause.code.replace(/^FORMULA_/, '').toLowerCase(),
      ...(details.keys ? { keys: details.keys } : {}),
      ...(details.path ? { path: details.path } : {}),
      ...(details.reason ? { cause: details.reason } : {}),
      ...(retiredKeys?.length ? { retired_keys: retiredKeys } : {}),
    },
  });
}

import { TransactionHost } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { Actor, Clock, invalidParameter, isUuid, parseDecimal, preparedQuery } from '@app/shared-kernel';
import { catalogNotFound } from '../../domain/catalog-errors';
import { assertCostKey, CostValue } from '../../domain/cost-value';
import { evaluateExpression, formulaReferences, FormulaScope, parseFormula, withBinding } from '../../domain/formula';
import { ProductContent } from '../../domain/product';
import { ProductRepository } from '../../domain/repositories';
import { CostCascades } from './cost-cascades';
import { CostRef, Pricing } from '../pricing';
import {
  ExplainInput,
  CascadePreviewInput,
  ExplainResult,
  CascadePreviewResult,
  EvaluateFormulaQuery,
} from './evaluate-formula.query';

@QueryHandler(EvaluateFormulaQuery)
export class EvaluateFormulaHandler implements IQueryHandler<EvaluateFormulaQuery> {
  constructor(
    private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>,
    private readonly products: ProductRepository,
    private readonly pricing: Pricing,
    private readonly cascades: CostCascades,
    private readonly clock: Clock,
  ) {}

  async execute({ actor, input }: EvaluateFormulaQuery) {
    return 'explain' in input ? this.explain(actor, input.explain) : this.preview(actor, input.preview);
  }

  /** Model §3.7, explain: the value, each node's value, and every key with the revision it resolved to. */
  private async explain(actor: Actor, input: ExplainInput): Promise<ExplainResult> {
    const at = input.asOf ?? this.clock.now();
    const values = Object.entries(input.values ?? {}).map(([key, value]) => {
      assertCostKey(key);
      parseDecimal(value, `values.${key}`);
      return [key, value] as const;
    });
    let scope: FormulaScope<CostRef | undefined> = input.productId
      ? await this.pricing.productScope(
          actor,
          await this.productContent(actor, input.productId, input.view ?? 'draft'),
          at,
          keysOf(input.expression),
        )
      : await this.pricing.orgScope(actor, keysOf(input.expression), at);
    for (const [key, value] of values) scope = withBinding(scope, key, { kind: 'value', value, id: `value:${key}` });
    const evaluation = evaluateExpression(input.expression, scope, { explain: true });
    return {
      object: 'formula_evaluation',
      value: evaluation.value,
      explain: evaluation.explain!,
      references: evaluation.references.map((resolved) => ({
        key: resolved.key,
        cost_id: resolved.metadata?.costId ?? null,
        scope: resolved.metadata?.scope ?? 'VALUE',
        revision: resolved.metadata?.revisionNo ?? null,
        value: resolved.value,
        expression: resolved.expression,
      })),
    };
  }

  /** Model §3.7, cascade preview: each consumer's unit price before and after, computed like the save's pre-flight. */
  private async preview(actor: Actor, input: CascadePreviewInput): Promise<CascadePreviewResult> {
    const [cost] = isUuid(input.costId)
      ? await preparedQuery<{ key: string }>(
          this.txHost.tx,
          `SELECT key FROM costs WHERE organization_id = $1 AND workspace_id = $2 AND id = $3 AND scope = 'ORG' AND state = 'active'`,
          [actor.organizationId, actor.workspaceId, input.costId],
        )
      : [];
    if (!cost) throw catalogNotFound('cost_id', 'cost');
    const now = this.clock.now();
    const at = input.effectiveAt ?? now;
    if (at.getTime() < now.getTime())
      throw invalidParameter('effective_at', 'OUT_OF_RANGE', 'effective_at must not be in the past.');
    const value: CostValue =
      input.amount !== undefined
        ? { kind: 'amount', amount: parseDecimal(input.amount, 'amount') && input.amount, expression: null, references: [] }
        : {
            kind: 'expression',
            amount: null,
            expression: input.expression!,
            references: await this.pricing.checkOrgExpression(actor, cost.key, input.costId, input.expression!, at),
          };
    const consumers = [];
    for (const consumer of await this.cascades.consumers(actor, input.costId)) {
      const content = await this.products.headContent(actor, consumer.product_version_id);
      const before = await this.products.materializedVersion(actor, consumer.product_version_id);
      const after = await this.pricing.materialize(actor, content, at, {
        override: { key: cost.key, costId: input.costId, value },
      });
      consumers.push({
        product_id: consumer.product_id,
        version: consumer.version,
        unit_price_before: before.unitPrice,
        unit_price_after: after.ok ? after.unitPrice : null,
        error: after.ok ? null : { code: after.error.code, message: after.error.message },
      });
    }
    return { object: 'cascade_preview', cost_id: input.costId, effective_at: at, consumers };
  }

  private async productContent(actor: Actor, productId: string, view: 'draft' | 'head'): Promise<ProductContent> {
    const [product] = isUuid(productId)
      ? await preparedQuery<{ head_version_id: string | null; draft_version_id: string | null }>(
          this.txHost.tx,
          `SELECT head_version_id, draft_version_id FROM products WHERE organization_id = $1 AND workspace_id = $2 AND id = $3`,
          [actor.organizationId, actor.workspaceId, productId],
        )
      : [];
    if (!product) throw catalogNotFound('product_id', 'product');
    const versionId = view === 'head' ? product.head_version_id : (product.draft_version_id ?? product.head_version_id);
    return versionId ? this.products.headContent(actor, versionId) : { priceExpression: null, entries: [], notBefore: null };
  }
}

/** Parses once up front, so a malformed formula is 400 FORMULA_SYNTAX_ERROR before any lookup. */
function keysOf(expression: string): string[] {
  return formulaReferences(parseFormula(expression));
}

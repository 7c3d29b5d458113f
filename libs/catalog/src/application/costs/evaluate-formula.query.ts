import { Query } from '@nestjs/cqrs';
import { Actor } from '@app/shared-kernel';
import { FormulaExplainNode } from '../../domain/formula';

export interface ExplainInput {
  expression: string;
  productId?: string;
  view?: 'draft' | 'head';
  asOf?: Date;
  /** What-if values standing for keys, whatever they resolve to. */
  values?: Record<string, string>;
}

export interface CascadePreviewInput {
  costId: string;
  amount?: string;
  expression?: string;
  effectiveAt?: Date;
}

export interface ExplainResult {
  object: 'formula_evaluation';
  value: string;
  explain: FormulaExplainNode;
  references: {
    key: string;
    cost_id: string | null;
    scope: 'ORG' | 'PRODUCT' | 'VALUE';
    revision: number | null;
    value: string;
    expression: string | null;
  }[];
}

export interface CascadePreviewResult {
  object: 'cascade_preview';
  cost_id: string;
  effective_at: Date;
  consumers: {
    product_id: string;
    version: number;
    unit_price_before: string | null;
    unit_price_after: string | null;
    error: { code: string; message: string } | null;
  }[];
}

/** `POST /v1/costs/evaluate`: a pure computation; it changes nothing. */
export class EvaluateFormulaQuery extends Query<ExplainResult | CascadePreviewResult> {
  constructor(
    readonly actor: Actor,
    readonly input: { explain: ExplainInput } | { preview: CascadePreviewInput },
  ) {
    super();
  }
}

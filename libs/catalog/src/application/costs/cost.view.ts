/** The cost object of the API, as the contract names it (snake_case). */

export interface CostView {
  object: 'cost';
  id: string;
  key: string;
  scope: 'ORG' | 'PRODUCT';
  product_id: string | null;
  amount: string | null;
  expression: string | null;
  /** The value in effect (an expression evaluated now), or null when it cannot be evaluated. */
  value: string | null;
  revision: number;
  effective_at: Date;
  /** ORG costs: the next value already saved with a future effective_at. */
  pending_value: { amount: string | null; expression: string | null; effective_at: Date; revision: number } | null;
  /** PRODUCT costs: whether the live version carries this cost (false: staged in the draft only). */
  released: boolean | null;
  description: string | null;
  metadata: Record<string, unknown>;
  translations: Record<string, unknown>;
  requires_continuous_coverage: boolean;
  status: 'active' | 'retired' | 'removed_in_draft' | 'removed';
  /** ORG costs: the cascade run started by the latest value change or retirement. */
  cascade_run_id: string | null;
  created_at: Date;
  updated_at: Date;
}

/** The API objects of the catalog, as the contract names them (snake_case). */

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

export interface ConsumerView {
  product_id: string;
  product_version_id: string | null;
  version: number | null;
}

export interface VersionRef {
  id: string;
  version: number;
}

export interface ProductView {
  object: 'product';
  id: string;
  name: string;
  description: string | null;
  metadata: Record<string, unknown>;
  status: 'draft' | 'active' | 'archived';
  /** The working view: the draft's formula when a draft is open, else the head's. */
  price_expression: string | null;
  /** What the live version resolved at go-live. */
  unit_price: string | null;
  version: number;
  live_version: VersionRef | null;
  draft_version: VersionRef | null;
  has_scheduled_version: boolean;
  next_release_at: Date | null;
  published_at: Date | null;
  archived_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

export interface VersionLifecycleView {
  id: string;
  version: number;
  status: string;
  archived_reason: string | null;
  origin: string | null;
  base_version_id: string | null;
  change_id: string | null;
  scheduled_change_id: string | null;
  scheduled_for: Date | null;
  rank: number | null;
  effective_from: Date | null;
  effective_to: Date | null;
  published_at: Date | null;
  release_name: string | null;
  release_note: string | null;
  cascade_source: { entity_type: string; entity_id: string; version_id: string; version: number } | null;
  created_by: { type: string; id: string | null; via?: string };
  created_at: Date;
  error: { code: string; message: string; details: Record<string, unknown> } | null;
}

export interface MaterializedCostView {
  key: string;
  cost_id: string;
  scope: 'ORG' | 'PRODUCT';
  revision: number;
  kind: 'amount' | 'expression' | null;
  expression: string | null;
  value: string | null;
}

export interface ProductVersionView extends VersionLifecycleView {
  object: 'product_version';
  product_id: string;
  price_expression: string | null;
  unit_price: string | null;
  not_before: Date | null;
  costs: MaterializedCostView[];
}

export interface ProductDraftView {
  object: 'staged_draft';
  id: string;
  product_id: string;
  version: number;
  opened_at: Date;
  updated_at: Date;
  base_version_id: string | null;
  base_version: number | null;
  head_version: number | null;
  not_before: Date | null;
  price_expression: string | null;
  summary: { fields_changed: string[]; costs_added: string[]; costs_removed: string[]; cost_values_changed: string[] };
}

export interface ChangeView {
  object: 'change';
  id: string;
  operation: 'catalog.publish_version';
  subject_kind: 'plan' | 'product';
  subject_id: string;
  staged_version_id: string;
  status: 'pending' | 'applied' | 'canceled' | 'failed';
  scheduled_for: Date | null;
  rank: number | null;
  pins: { product_id: string; product_version_id: string }[];
  release_name: string | null;
  release_note: string | null;
  result: VersionRef | null;
  error: { code: string; message: string } | null;
  /** Cancel only: queued versions or the draft based on the canceled release (their content keeps it). */
  dependents?: { id: string; version: number; status: string }[];
  created_by: { type: string; id: string | null };
  created_at: Date;
  applied_at: Date | null;
  canceled_at: Date | null;
}

export interface CascadeRunView {
  object: 'cascade_run';
  id: string;
  trigger: 'cost_value' | 'cost_retire' | 'product_go_live';
  /** A product go-live's run started inside a cost cascade (its plan task had already started): that cascade's run. */
  root_run_id: string | null;
  source: { entity_type: 'cost' | 'product'; entity_id: string; version_id: string; version: number };
  status: 'pending' | 'running' | 'completed';
  effective_at: Date;
  counts: { total: number; pending: number; republished: number; unchanged: number; errored: number };
  created_at: Date;
  started_at: Date | null;
  completed_at: Date | null;
}

export interface CascadeTaskView {
  subject_kind: 'product' | 'plan';
  subject_id: string;
  status: 'pending' | 'republished' | 'unchanged' | 'errored';
  result_version: VersionRef | null;
  attempts: number;
  error: { code: string; message: string; details: Record<string, unknown> } | null;
  updated_at: Date;
}

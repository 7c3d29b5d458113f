import { VersionRef, VersionLifecycleView } from '../version-views';

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

import { Query } from '@nestjs/cqrs';
import { Actor } from '@app/shared-kernel';

export class GetCascadeRunQuery extends Query<CascadeRunView> {
  constructor(
    readonly actor: Actor,
    readonly runId: string,
  ) {
    super();
  }
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

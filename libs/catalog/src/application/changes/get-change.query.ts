import { Query } from '@nestjs/cqrs';
import { Actor } from '@app/shared-kernel';
import { VersionRef } from '../version-views';

export class GetChangeQuery extends Query<ChangeView> {
  constructor(
    readonly actor: Actor,
    readonly changeId: string,
  ) {
    super();
  }
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

import { Query } from '@nestjs/cqrs';
import { Actor, Page } from '@app/shared-kernel';
import { VersionRef } from '../version-views';

export class ListCascadeTasksQuery extends Query<Page<CascadeTaskView>> {
  constructor(
    readonly actor: Actor,
    readonly runId: string,
    readonly limit: number,
    readonly cursor: string | undefined,
  ) {
    super();
  }
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

import { Query } from '@nestjs/cqrs';
import { Actor, Page } from '@app/shared-kernel';

export interface AuditEventView {
  id: string;
  workspaceId: string | null;
  action: string;
  resourceType: string;
  resourceId: string;
  principal: { type: string; id: string | null };
  requestId: string | null;
  data: Record<string, unknown>;
  occurredAt: Date;
}

export interface AuditEventFilters {
  resourceType?: string;
  resourceId?: string;
  principalId?: string;
  occurredAfter?: Date;
  occurredBefore?: Date;
}

/** The organization's audit trail, newest first, across its workspaces. */
export class ListAuditEventsQuery extends Query<Page<AuditEventView>> {
  constructor(
    readonly actor: Actor,
    readonly limit: number,
    readonly cursor: string | undefined,
    readonly filters: AuditEventFilters,
  ) {
    super();
  }
}

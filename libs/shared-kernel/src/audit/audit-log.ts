import { TransactionHost } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { Injectable } from '@nestjs/common';
import { ClsService } from 'nestjs-cls';
import { Clock } from '../clock';
import { executeWrites, SqlWrite } from '../persistence/sql-write';
import { newId } from '../ids';
import { REQUEST_ID_KEY } from '../request-context';

/** Who acted: a request's principal, or the system (bootstrap, jobs). */
export interface AuditActor {
  organizationId: string;
  workspaceId: string | null;
  principal: { type: string; id: string | null };
}

export interface AuditEntry {
  action: string;
  resourceType: string;
  resourceId: string;
  data?: Record<string, unknown>;
}

/**
 * Records who did what, where and when, inside the mutation's own transaction: an effect
 * without its audit row (or the reverse) cannot commit.
 */
@Injectable()
export class AuditLog {
  constructor(
    private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>,
    private readonly clock: Clock,
    private readonly cls: ClsService,
  ) {}

  async record(actor: AuditActor, entry: AuditEntry): Promise<void> {
    if (!this.txHost.isTransactionActive()) throw new Error('AuditLog.record must run inside a transaction');
    await executeWrites(this.txHost.tx, [this.write(actor, entry)]);
  }

  /** The audit row as a write to combine with the mutation's own statement (one round trip). */
  write(actor: AuditActor, entry: AuditEntry): SqlWrite {
    return {
      text: `INSERT INTO audit_events (organization_id, id, workspace_id, action, resource_type, resource_id,
         principal_type, principal_id, request_id, data, occurred_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
      values: [
        actor.organizationId,
        newId(),
        actor.workspaceId,
        entry.action,
        entry.resourceType,
        entry.resourceId,
        actor.principal.type,
        actor.principal.id,
        this.cls.isActive() ? (this.cls.get<string | undefined>(REQUEST_ID_KEY) ?? null) : null,
        JSON.stringify(entry.data ?? {}),
        this.clock.now(),
      ],
    };
  }

  /** Many audit rows of one actor as a single set-based write (a batch's), one statement whatever their number. */
  writeMany(actor: AuditActor, entries: readonly AuditEntry[]): SqlWrite {
    const requestId = this.cls.isActive() ? (this.cls.get<string | undefined>(REQUEST_ID_KEY) ?? null) : null;
    const now = this.clock.now();
    return {
      text: `INSERT INTO audit_events (organization_id, id, workspace_id, action, resource_type, resource_id,
         principal_type, principal_id, request_id, data, occurred_at)
       SELECT $1, e.id, $2, e.action, e.resource_type, e.resource_id, $3, $4, $5, e.data, $6
         FROM jsonb_to_recordset($7::jsonb) AS e(id uuid, action text, resource_type text, resource_id text, data jsonb)`,
      values: [
        actor.organizationId,
        actor.workspaceId,
        actor.principal.type,
        actor.principal.id,
        requestId,
        now,
        JSON.stringify(
          entries.map((entry) => ({
            id: newId(),
            action: entry.action,
            resource_type: entry.resourceType,
            resource_id: entry.resourceId,
            data: entry.data ?? {},
          })),
        ),
      ],
    };
  }
}

import { TransactionHost } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { CommandHandler, ICommandHandler, IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import {
  Actor,
  AuditLog,
  Clock,
  CursorCodec,
  DomainError,
  isUuid,
  keysetPage,
  newestFirstPosition,
  newId,
} from '@app/shared-kernel';
import { DataSource } from 'typeorm';
import {
  newSigningSecret,
  SECRET_OVERLAP_MS,
  validDescription,
  validEnabledEvents,
  validMetadata,
  validStatus,
} from '../domain/webhook-endpoint';
import { WebhookSecretVault } from './secret-vault';
import { WebhookUrlGuard } from './url-guard';
import {
  CreateWebhookEndpointCommand,
  DeleteWebhookEndpointCommand,
  GetWebhookEndpointQuery,
  ListWebhookDeliveriesQuery,
  ListWebhookEndpointsQuery,
  RotateWebhookSecretCommand,
  UpdateWebhookEndpointCommand,
  WebhookDeliveryView,
  WebhookEndpointView,
  WebhookEndpointWithSecret,
} from './webhook-endpoint.commands';

export interface EndpointRow {
  id: string;
  workspace_id: string;
  url: string;
  description: string | null;
  metadata: Record<string, string>;
  enabled_events: string[];
  status: 'enabled' | 'disabled';
  disabled_reason: 'manual' | 'failing' | null;
  disabled_at: Date | null;
  previous_secret_expires_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

export const ENDPOINT_COLUMNS = `id, workspace_id, url, description, metadata, enabled_events, status, disabled_reason, disabled_at,
  previous_secret_expires_at, created_at, updated_at`;

export function toView(row: EndpointRow, now?: Date): WebhookEndpointView {
  const overlap = row.previous_secret_expires_at;
  return {
    id: row.id,
    workspaceId: row.workspace_id,
    url: row.url,
    description: row.description,
    metadata: row.metadata,
    enabledEvents: row.enabled_events,
    status: row.status,
    disabledReason: row.disabled_reason,
    disabledAt: row.disabled_at,
    previousSecretExpiresAt: overlap !== null && (now === undefined || overlap > now) ? overlap : null,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export function endpointNotFound(): DomainError {
  return new DomainError('not_found', 'WEBHOOK_ENDPOINT_NOT_FOUND', 'No such webhook endpoint.', { param: 'id' });
}

/** The endpoint of the caller's workspace, or WEBHOOK_ENDPOINT_NOT_FOUND (another tenant's is unknown too). */
async function findEndpoint(
  db: { query(sql: string, parameters?: unknown[]): Promise<EndpointRow[]> },
  actor: Actor,
  endpointId: string,
  lock = false,
): Promise<EndpointRow> {
  const rows = isUuid(endpointId)
    ? await db.query(
        `SELECT ${ENDPOINT_COLUMNS} FROM webhook_endpoints WHERE organization_id = $1 AND workspace_id = $2 AND id = $3${lock ? ' FOR UPDATE' : ''}`,
        [actor.organizationId, actor.workspaceId, endpointId],
      )
    : [];
  if (!rows[0]) throw endpointNotFound();
  return rows[0];
}

@CommandHandler(CreateWebhookEndpointCommand)
export class CreateWebhookEndpointHandler implements ICommandHandler<CreateWebhookEndpointCommand> {
  constructor(
    private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>,
    private readonly urls: WebhookUrlGuard,
    private readonly vault: WebhookSecretVault,
    private readonly audit: AuditLog,
    private readonly clock: Clock,
  ) {}

  async execute({ actor, input }: CreateWebhookEndpointCommand): Promise<WebhookEndpointWithSecret> {
    const enabledEvents = validEnabledEvents(input.enabledEvents);
    const description = validDescription(input.description);
    const metadata = validMetadata(input.metadata);
    // Resolved before the transaction: a slow name server never holds a database connection.
    const { url } = await this.urls.check(input.url);
    const secret = newSigningSecret();
    const id = newId();
    return this.txHost.withTransaction(async () => {
      const now = this.clock.now();
      const rows: EndpointRow[] = await this.txHost.tx.query(
        `INSERT INTO webhook_endpoints (organization_id, workspace_id, id, url, description, metadata, enabled_events, status,
           secret_sealed, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, 'enabled', $8, $9, $9)
         RETURNING ${ENDPOINT_COLUMNS}`,
        [
          actor.organizationId,
          actor.workspaceId,
          id,
          url.href,
          description,
          JSON.stringify(metadata),
          enabledEvents,
          this.vault.seal(secret),
          now,
        ],
      );
      await this.audit.record(actor, { action: 'webhook_endpoint.created', resourceType: 'webhook_endpoint', resourceId: id });
      return { endpoint: toView(rows[0]), secret };
    });
  }
}

@CommandHandler(UpdateWebhookEndpointCommand)
export class UpdateWebhookEndpointHandler implements ICommandHandler<UpdateWebhookEndpointCommand> {
  constructor(
    private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>,
    private readonly urls: WebhookUrlGuard,
    private readonly audit: AuditLog,
    private readonly clock: Clock,
  ) {}

  /** Merge-patch: an omitted or null field is left as it is. */
  async execute({ actor, endpointId, input }: UpdateWebhookEndpointCommand): Promise<WebhookEndpointView> {
    const given = (value: unknown) => value !== undefined && value !== null;
    const enabledEvents = given(input.enabledEvents) ? validEnabledEvents(input.enabledEvents) : null;
    const description = given(input.description) ? validDescription(input.description) : null;
    const metadata = given(input.metadata) ? validMetadata(input.metadata) : null;
    const status = given(input.status) ? validStatus(input.status) : null;
    if (given(input.url)) this.urls.parse(input.url);
    // Unknown ids answer 404 before any resolution of the URL.
    await findEndpoint(this.txHost.tx, actor, endpointId);
    const url = given(input.url) ? (await this.urls.check(input.url)).url.href : null;
    return this.txHost.withTransaction(async () => {
      const current = await findEndpoint(this.txHost.tx, actor, endpointId, true);
      const now = this.clock.now();
      const enabling = status === 'enabled' && current.status === 'disabled';
      const disabling = status === 'disabled' && current.status === 'enabled';
      const [rows]: [EndpointRow[], number] = await this.txHost.tx.query(
        `UPDATE webhook_endpoints
            SET url = coalesce($4, url), enabled_events = coalesce($5, enabled_events),
                description = CASE WHEN $6::boolean THEN $7 ELSE description END,
                metadata = coalesce($8::jsonb, metadata),
                status = CASE WHEN $9::boolean THEN 'enabled' WHEN $10::boolean THEN 'disabled' ELSE status END,
                disabled_reason = CASE WHEN $9::boolean THEN NULL WHEN $10::boolean THEN 'manual' ELSE disabled_reason END,
                disabled_at = CASE WHEN $9::boolean THEN NULL WHEN $10::boolean THEN $11 ELSE disabled_at END,
                failing_since = CASE WHEN $9::boolean THEN NULL ELSE failing_since END,
                updated_at = $11
          WHERE organization_id = $1 AND workspace_id = $2 AND id = $3
          RETURNING ${ENDPOINT_COLUMNS}`,
        [
          actor.organizationId,
          actor.workspaceId,
          current.id,
          url,
          enabledEvents,
          given(input.description),
          description === '' ? null : description,
          metadata === null ? null : JSON.stringify(metadata),
          enabling,
          disabling,
          now,
        ],
      );
      await this.audit.record(actor, {
        action: 'webhook_endpoint.updated',
        resourceType: 'webhook_endpoint',
        resourceId: current.id,
      });
      return toView(rows[0], now);
    });
  }
}

@CommandHandler(DeleteWebhookEndpointCommand)
export class DeleteWebhookEndpointHandler implements ICommandHandler<DeleteWebhookEndpointCommand> {
  constructor(
    private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>,
    private readonly audit: AuditLog,
  ) {}

  /** Its deliveries and their log go with it (no attempt is made for a deleted endpoint). */
  async execute({ actor, endpointId }: DeleteWebhookEndpointCommand): Promise<void> {
    await this.txHost.withTransaction(async () => {
      const current = await findEndpoint(this.txHost.tx, actor, endpointId, true);
      await this.txHost.tx.query(`DELETE FROM webhook_endpoints WHERE organization_id = $1 AND workspace_id = $2 AND id = $3`, [
        actor.organizationId,
        actor.workspaceId,
        current.id,
      ]);
      await this.audit.record(actor, {
        action: 'webhook_endpoint.deleted',
        resourceType: 'webhook_endpoint',
        resourceId: current.id,
      });
    });
  }
}

@CommandHandler(RotateWebhookSecretCommand)
export class RotateWebhookSecretHandler implements ICommandHandler<RotateWebhookSecretCommand> {
  constructor(
    private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>,
    private readonly vault: WebhookSecretVault,
    private readonly audit: AuditLog,
    private readonly clock: Clock,
  ) {}

  /**
   * A new secret signs from now on; the one it replaces keeps signing beside it for 24 hours
   * (two signatures per delivery). A second rotation within the overlap retires the older one.
   */
  async execute({ actor, endpointId }: RotateWebhookSecretCommand): Promise<WebhookEndpointWithSecret> {
    const secret = newSigningSecret();
    return this.txHost.withTransaction(async () => {
      const current = await findEndpoint(this.txHost.tx, actor, endpointId, true);
      const now = this.clock.now();
      const [rows]: [EndpointRow[], number] = await this.txHost.tx.query(
        `UPDATE webhook_endpoints
            SET previous_secret_sealed = secret_sealed, previous_secret_expires_at = $4, secret_sealed = $5, updated_at = $6
          WHERE organization_id = $1 AND workspace_id = $2 AND id = $3
          RETURNING ${ENDPOINT_COLUMNS}`,
        [
          actor.organizationId,
          actor.workspaceId,
          current.id,
          new Date(now.getTime() + SECRET_OVERLAP_MS),
          this.vault.seal(secret),
          now,
        ],
      );
      await this.audit.record(actor, {
        action: 'webhook_endpoint.secret_rotated',
        resourceType: 'webhook_endpoint',
        resourceId: current.id,
      });
      return { endpoint: toView(rows[0], now), secret };
    });
  }
}

@QueryHandler(GetWebhookEndpointQuery)
export class GetWebhookEndpointHandler implements IQueryHandler<GetWebhookEndpointQuery> {
  constructor(
    private readonly dataSource: DataSource,
    private readonly clock: Clock,
  ) {}

  async execute({ actor, endpointId }: GetWebhookEndpointQuery): Promise<WebhookEndpointView> {
    return toView(await findEndpoint(this.dataSource, actor, endpointId), this.clock.now());
  }
}

@QueryHandler(ListWebhookEndpointsQuery)
export class ListWebhookEndpointsHandler implements IQueryHandler<ListWebhookEndpointsQuery> {
  constructor(
    private readonly dataSource: DataSource,
    private readonly cursors: CursorCodec,
    private readonly clock: Clock,
  ) {}

  async execute({ actor, limit, cursor }: ListWebhookEndpointsQuery) {
    const page = await keysetPage<EndpointRow>(
      this.cursors,
      { list: 'webhook_endpoints', filters: {}, order: 'created_at:desc' },
      { limit, cursor },
      (after, rows) =>
        this.dataSource.query(
          `SELECT ${ENDPOINT_COLUMNS} FROM webhook_endpoints
            WHERE organization_id = $1 AND workspace_id = $2
              AND ($3::timestamptz IS NULL OR (created_at, id) < ($3, $4::uuid))
            ORDER BY created_at DESC, id DESC LIMIT $5`,
          [actor.organizationId, actor.workspaceId, after?.[0] ?? null, after?.[1] ?? null, rows],
        ),
      newestFirstPosition,
    );
    const now = this.clock.now();
    return { ...page, data: page.data.map((row) => toView(row, now)) };
  }
}

export interface DeliveryRow {
  id: string;
  endpoint_id: string;
  event_id: string;
  event_type: string;
  attempt: number;
  status: WebhookDeliveryView['status'];
  response_status: number | null;
  duration_ms: number | null;
  error: string | null;
  created_at: Date;
  next_attempt_at: Date | null;
}

@QueryHandler(ListWebhookDeliveriesQuery)
export class ListWebhookDeliveriesHandler implements IQueryHandler<ListWebhookDeliveriesQuery> {
  constructor(
    private readonly dataSource: DataSource,
    private readonly cursors: CursorCodec,
  ) {}

  async execute({ actor, endpointId, limit, cursor, filters }: ListWebhookDeliveriesQuery) {
    const endpoint = await findEndpoint(this.dataSource, actor, endpointId);
    const page = await keysetPage<DeliveryRow>(
      this.cursors,
      {
        list: `webhook_deliveries:${endpoint.id}`,
        filters: { event_id: filters.eventId ?? null, status: filters.status ?? null },
        order: 'created_at:desc',
      },
      { limit, cursor },
      (after, rows) =>
        this.dataSource.query(
          `SELECT id, endpoint_id, event_id, event_type, attempt, status, response_status, duration_ms, error, created_at,
                  next_attempt_at
             FROM webhook_deliveries
            WHERE organization_id = $1 AND endpoint_id = $2 AND workspace_id = $3
              AND ($4::uuid IS NULL OR event_id = $4) AND ($5::text IS NULL OR status = $5)
              AND ($6::timestamptz IS NULL OR (created_at, id) < ($6, $7::uuid))
            ORDER BY created_at DESC, id DESC LIMIT $8`,
          [
            actor.organizationId,
            endpoint.id,
            actor.workspaceId,
            filters.eventId ?? null,
            filters.status ?? null,
            after?.[0] ?? null,
            after?.[1] ?? null,
            rows,
          ],
        ),
      newestFirstPosition,
    );
    return { ...page, data: page.data.map(toDeliveryView) };
  }
}

export function toDeliveryView(row: DeliveryRow): WebhookDeliveryView {
  return {
    id: row.id,
    endpointId: row.endpoint_id,
    eventId: row.event_id,
    eventType: row.event_type,
    attempt: row.attempt,
    status: row.status,
    responseStatus: row.response_status,
    durationMs: row.duration_ms,
    error: row.error,
    createdAt: row.created_at,
    nextAttemptAt: row.next_attempt_at,
  };
}

export const DELIVERY_COLUMNS = `id, endpoint_id, event_id, event_type, attempt, status, response_status, duration_ms, error, created_at,
  next_attempt_at`;

export const WebhookEndpointHandlers = [
  CreateWebhookEndpointHandler,
  UpdateWebhookEndpointHandler,
  DeleteWebhookEndpointHandler,
  RotateWebhookSecretHandler,
  GetWebhookEndpointHandler,
  ListWebhookEndpointsHandler,
  ListWebhookDeliveriesHandler,
];

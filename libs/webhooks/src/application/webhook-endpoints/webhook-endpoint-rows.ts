import { Actor, DomainError, isUuid } from '@app/shared-kernel';
import { WebhookEndpointView } from './webhook-endpoint.view';
import { WebhookErrors } from '../../domain/webhook-errors';

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
  return WebhookErrors.WEBHOOK_ENDPOINT_NOT_FOUND.create('No such webhook endpoint.', { param: 'id' });
}

/** The endpoint of the caller's workspace, or WEBHOOK_ENDPOINT_NOT_FOUND (another tenant's is unknown too). */
export async function findEndpoint(
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

import type { WebhookEndpointView } from './webhook-endpoint.view';

/** A webhook endpoint as its GET answers it (no secret): the API's body and the `data.object` of its events. */
export interface WebhookEndpointResponse {
  id: string;
  object: 'webhook_endpoint';
  workspace_id: string;
  url: string;
  description: string | null;
  enabled_events: string[];
  metadata: Record<string, string>;
  status: 'enabled' | 'disabled';
  disabled_reason: 'manual' | 'failing' | null;
  disabled_at: string | null;
  previous_secret_expires_at: string | null;
  created_at: string;
  updated_at: string;
}

export function webhookEndpointResponse(endpoint: WebhookEndpointView): WebhookEndpointResponse {
  return {
    id: endpoint.id,
    object: 'webhook_endpoint',
    workspace_id: endpoint.workspaceId,
    url: endpoint.url,
    description: endpoint.description,
    enabled_events: endpoint.enabledEvents,
    metadata: endpoint.metadata,
    status: endpoint.status,
    disabled_reason: endpoint.disabledReason,
    disabled_at: endpoint.disabledAt?.toISOString() ?? null,
    previous_secret_expires_at: endpoint.previousSecretExpiresAt?.toISOString() ?? null,
    created_at: endpoint.createdAt.toISOString(),
    updated_at: endpoint.updatedAt.toISOString(),
  };
}

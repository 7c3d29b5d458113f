import { WebhookEndpointStatus } from '../../domain/webhook-endpoint';

/** An endpoint as answered: never its secret (create and rotate add it once). */
export interface WebhookEndpointView {
  id: string;
  workspaceId: string;
  url: string;
  description: string | null;
  metadata: Record<string, string>;
  enabledEvents: string[];
  status: WebhookEndpointStatus;
  disabledReason: 'manual' | 'failing' | null;
  disabledAt: Date | null;
  /** While a rotated-out secret still signs beside the current one. */
  previousSecretExpiresAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

export interface WebhookEndpointWithSecret {
  endpoint: WebhookEndpointView;
  secret: string;
}

import { WebhookDeliveryView } from './webhook-delivery.view';

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

export interface WebhookDeliveryView {
  id: string;
  endpointId: string;
  eventId: string;
  eventType: string;
  attempt: number;
  status: 'pending' | 'succeeded' | 'failed';
  responseStatus: number | null;
  durationMs: number | null;
  error: string | null;
  createdAt: Date;
  nextAttemptAt: Date | null;
}

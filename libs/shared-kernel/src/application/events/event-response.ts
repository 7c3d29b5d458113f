import { DomainError } from '../../domain-error';
import { EventType } from '../../events/event-types';
import { SharedErrors } from '../../shared-kernel-errors';

/** An event as the API answers it (api-contract §4). */
export interface EventResponse {
  id: string;
  object: 'event';
  type: EventType;
  created_at: string;
  sequence: number;
  workspace_id: string;
  livemode: boolean;
  data: { object: Record<string, unknown>; previous_attributes?: Record<string, unknown> };
  request: { id: string | null; idempotency_key: string | null } | null;
}

export interface EventRow {
  id: string;
  type: EventType;
  created_at: Date;
  sequence: string;
  workspace_id: string;
  livemode: boolean;
  data: EventResponse['data'];
  request_id: string | null;
  idempotency_key: string | null;
}

export const COLUMNS = 'id, type, created_at, sequence, workspace_id, livemode, data, request_id, idempotency_key';

export function toResponse(row: EventRow): EventResponse {
  return {
    id: row.id,
    object: 'event',
    type: row.type,
    created_at: row.created_at.toISOString(),
    sequence: Number(row.sequence),
    workspace_id: row.workspace_id,
    livemode: row.livemode,
    data: row.data,
    request: row.request_id === null ? null : { id: row.request_id, idempotency_key: row.idempotency_key },
  };
}

export function eventNotFound(): DomainError {
  return SharedErrors.EVENT_NOT_FOUND.create('No such event.', { param: 'id' });
}

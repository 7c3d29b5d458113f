/**
 * SQL shared by the fan-out (webhook-fan-out.ts) and the event hook (webhook-event-hook.ts), over
 * an event row `e` (every column of `events`) and an endpoint row `w`.
 */

/** An endpoint `w` selects the event `e`: `*`, the exact type, or `prefix.*` (as eventTypeMatches). */
const SELECTS = `EXISTS (SELECT 1 FROM unnest(w.enabled_events) f
  WHERE f = '*' OR f = e.type OR (right(f, 2) = '.*' AND starts_with(e.type, left(f, -1))))`;

/**
 * The workspace's enabled endpoints (`$1` organization, `$2` workspace) that select the event `e`
 * and existed when it happened (an endpoint receives the events that come after it).
 */
export const MATCHING_ENDPOINTS = `webhook_endpoints w
  WHERE w.organization_id = $1 AND w.workspace_id = $2 AND w.status = 'enabled' AND w.created_at <= e.created_at
    AND ${SELECTS}`;

/**
 * The body posted: the event as GET /v1/events/{id} answers it (same fields, same order, same
 * formats: created_at as toISOString writes it, sequence a number).
 */
export const EVENT_BODY = `json_build_object(
  'id', e.id, 'object', 'event', 'type', e.type,
  'created_at', to_char(e.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
  'sequence', e.sequence, 'workspace_id', e.workspace_id, 'livemode', e.livemode, 'data', e.data,
  'request', CASE WHEN e.request_id IS NULL THEN NULL
                  ELSE json_build_object('id', e.request_id, 'idempotency_key', e.idempotency_key) END)::text`;

/** A UUIDv7 (like newId) stamped with the event's time: random bits, the version nibble set to 7. */
export const DELIVERY_ID = `encode(set_bit(set_bit(overlay(uuid_send(gen_random_uuid())
  PLACING substring(int8send(floor(extract(epoch FROM e.created_at) * 1000)::bigint) FROM 3) FROM 1 FOR 6), 52, 1), 53, 1), 'hex')::uuid`;

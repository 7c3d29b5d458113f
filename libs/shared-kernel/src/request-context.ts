/** Keys of the per-request context (nestjs-cls) that the platform reads outside the HTTP layer. */
export const REQUEST_ID_KEY = 'requestId';
/** The request's Idempotency-Key, when it carries one (events name it in `request`). */
export const IDEMPOTENCY_KEY_KEY = 'idempotencyKey';

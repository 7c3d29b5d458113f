/** Keys of the per-request context (nestjs-cls) that the platform reads outside the HTTP layer. */
export const REQUEST_ID_KEY = 'requestId';

/**
 * The headers the app sets on answers, documented once under components.headers and referenced
 * from each response that carries them, so a route added later is described without editing it.
 */
export const RESPONSE_HEADERS = {
  'Request-Id': {
    description:
      'Every answer carries it (configure-app.ts); quote it when reporting a problem: it is in the error body and the logs.',
    schema: {
      type: 'string',
      maxLength: 40,
      pattern: '^req_[0-9a-f-]{36}$',
      example: 'req_0b6f3f0e-9a55-4c1e-8d3a-7c2b1e0f4a21',
    },
  },
  Location: {
    description: 'The URL of what was created (201), or of the pending approval (202).',
    schema: {
      type: 'string',
      format: 'uri-reference',
      maxLength: 2048,
      example: '/v1/customers/0193a5c2-7f4e-7b1a-9c1d-2f0e4b5a6d01',
    },
  },
  'Idempotent-Replayed': {
    description:
      '`true` when this answer is the stored one replayed (the same Idempotency-Key, or for wallet money the same ' +
      'source and reference); absent on a first answer.',
    schema: { type: 'string', enum: ['true'], example: 'true' },
  },
  'WWW-Authenticate': {
    description: 'The scheme to authenticate with.',
    schema: { type: 'string', enum: ['Bearer'], example: 'Bearer' },
  },
};

type HeaderName = keyof typeof RESPONSE_HEADERS;
type Operation = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** A payment method has no URL of its own (no route reads one), so its 201 carries no Location. */
const CREATED_WITHOUT_URL = new Set(['attachPaymentMethod']);

const ref = (name: HeaderName) => ({ $ref: `#/components/headers/${name}` });

/**
 * Request-Id on every answer; Location on each 201 and 202; WWW-Authenticate on 401; and where
 * the idempotency interceptor stores answers (every 2xx and 4xx of a keyed route),
 * Idempotent-Replayed.
 */
export function addResponseHeaders(operation: Operation, idempotent: boolean): void {
  for (const [status, response] of Object.entries<Operation>(operation.responses)) {
    const names: HeaderName[] = ['Request-Id'];
    if ((status === '201' && !CREATED_WITHOUT_URL.has(operation.operationId)) || status === '202') names.push('Location');
    if (status === '401') names.push('WWW-Authenticate');
    if (idempotent && /^[24]/.test(status)) names.push('Idempotent-Replayed');
    response.headers = { ...response.headers, ...Object.fromEntries(names.map((name) => [name, ref(name)])) };
  }
}

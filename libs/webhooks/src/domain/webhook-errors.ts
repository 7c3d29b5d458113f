import { defineErrors } from '@app/shared-kernel';

/**
 * The webhooks context's refusals, each declared once (see
 * libs/shared-kernel/src/error-definitions.ts): throw sites create their DomainError from these,
 * and a definition with an `example` is a code the API documents
 * (apps/api/src/http/error-catalog.ts builds the OpenAPI examples from it).
 */
export const WebhookErrors = defineErrors({
  WEBHOOK_ENDPOINT_NOT_FOUND: { kind: 'not_found', example: 'No such webhook endpoint.', param: 'id' },
  WEBHOOK_URL_NOT_ALLOWED: {
    kind: 'invalid_request',
    example:
      "The url's host hooks.internal.example resolves to 10.0.0.7, which may not receive webhooks (10.0.0.7 is a private address).",
    param: 'url',
  },
});

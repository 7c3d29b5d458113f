import type { OpenAPIObject } from '@nestjs/swagger';
import { EVENT_TYPES, EventType } from '@app/shared-kernel';

/**
 * The component schema of each event type's `data.object`: the resource as its own GET answers
 * it (a product version as `GET /v1/products/{id}/versions` lists it). A `Record` over the
 * catalog, so a type added to EVENT_TYPES does not compile until it names its resource here.
 */
export const EVENT_OBJECT_SCHEMAS: Record<EventType, string> = {
  'customer.created': 'CustomerDto',
  'customer_verification.created': 'CustomerVerificationDto',
  'customer_verification.updated': 'CustomerVerificationDto',
  'api_key.created': 'ApiKeyDto',
  'api_key.updated': 'ApiKeyDto',
  'api_key.rotated': 'ApiKeyDto',
  'api_key.revoked': 'ApiKeyDto',
  'wallet.created': 'WalletDto',
  'wallet.updated': 'WalletDto',
  'wallet.transaction.created': 'WalletTransactionDto',
  'wallet.balance_low': 'WalletDto',
  'wallet.hold.created': 'HoldDto',
  'wallet.hold.captured': 'HoldDto',
  'wallet.hold.released': 'HoldDto',
  'wallet.top_up.created': 'TopUpDto',
  'wallet.top_up.succeeded': 'TopUpDto',
  'wallet.top_up.failed': 'TopUpDto',
  'approval_request.created': 'ApprovalDto',
  'approval_request.approved': 'ApprovalDto',
  'approval_request.rejected': 'ApprovalDto',
  'cost.created': 'CostDto',
  'cost.updated': 'CostDto',
  'cost.removed': 'CostDto',
  'cost.restored': 'CostDto',
  'product.created': 'ProductDto',
  'product.updated': 'ProductDto',
  'product.version.published': 'ProductVersionDto',
  'plan.created': 'PlanDto',
  'plan.updated': 'PlanDto',
  'plan.deleted': 'PlanDto',
  'plan.version.published': 'PlanVersionDto',
  'plan.version.scheduled': 'PlanVersionDto',
  'plan.version.archived': 'PlanVersionDto',
  'change.applied': 'ChangeDto',
  'change.canceled': 'ChangeDto',
  'cascade_run.completed': 'CascadeRunDto',
  'plan_migration.completed': 'MigrationDto',
  'subscription.created': 'SubscriptionDto',
  'subscription.canceled': 'SubscriptionDto',
  'subscription.version_changed': 'SubscriptionDto',
  'document_template.created': 'DocumentTemplateDto',
  'document_template.updated': 'DocumentTemplateDto',
  'document_template.deleted': 'DocumentTemplateDto',
  'document_template.default_changed': 'DocumentTemplateDto',
  'webhook_endpoint.disabled': 'WebhookEndpointDto',
};

/** The schema every event's body has (`GET /v1/events/{id}` answers it too). */
const EVENT_SCHEMA = 'EventDto';

const schemaRef = (name: string) => ({ $ref: `#/components/schemas/${name}` });

/** `wallet.hold.created` → `WalletHoldCreated`. */
function pascal(type: string): string {
  return type
    .split(/[._]/)
    .map((word) => word.charAt(0).toUpperCase() + word.slice(1))
    .join('');
}

const HEADERS = [
  {
    name: 'webhook-id',
    description: 'The event’s id: the same on every attempt and redelivery (deduplicate by it).',
    schema: { type: 'string' as const, format: 'uuid', maxLength: 36 },
  },
  {
    name: 'webhook-timestamp',
    description: 'When this attempt was signed, in Unix seconds.',
    schema: { type: 'string' as const, pattern: '^[0-9]+$', maxLength: 12 },
  },
  {
    name: 'webhook-signature',
    schema: { type: 'string' as const, pattern: '^v1,[A-Za-z0-9+/]+=*( v1,[A-Za-z0-9+/]+=*)*$', maxLength: 200 },
    description:
      '`v1,<base64 HMAC-SHA256>` keyed by the base64-decoded endpoint secret (after `whsec_`) over `<webhook-id>.<webhook-timestamp>.<body>`; ' +
      'space-separated, one per active secret (two for 24 hours after a rotation). Verify it with the `standardwebhooks` library.',
  },
];

/**
 * OpenAPI 3.1 `webhooks`: one entry per event type, the POST the API sends to an endpoint whose
 * `enabled_events` select the type (docs/webhooks.md). Its body is the event, `type` fixed and
 * `data.object` the resource's own schema.
 */
export function describeWebhooks(document: OpenAPIObject): OpenAPIObject {
  const webhooks = Object.fromEntries(
    EVENT_TYPES.map((type) => [
      type,
      {
        post: {
          operationId: `deliver${pascal(type)}Event`,
          summary: `The event ${type}, sent to your endpoint`,
          description:
            `Sent to each enabled webhook endpoint of the workspace whose \`enabled_events\` select \`${type}\`: ` +
            `\`data.object\` is the resource as its GET answered when the event happened. ` +
            'Answer any 2xx within 10 seconds; anything else is retried (about 5 s, 5 min, 30 min, 2 h, 5 h, 10 h and 10 h later). ' +
            'Order events by `sequence`; deduplicate by `webhook-id`.',
          tags: ['Events'],
          parameters: HEADERS.map((header) => ({
            in: 'header' as const,
            name: header.name,
            required: true,
            description: header.description,
            schema: header.schema,
          })),
          requestBody: {
            required: true,
            content: {
              'application/json': {
                schema: {
                  allOf: [
                    schemaRef(EVENT_SCHEMA),
                    {
                      type: 'object' as const,
                      properties: {
                        type: { type: 'string' as const, enum: [type] },
                        data: {
                          type: 'object' as const,
                          required: ['object'],
                          properties: {
                            object: schemaRef(EVENT_OBJECT_SCHEMAS[type]),
                            previous_attributes: {
                              type: 'object' as const,
                              additionalProperties: true,
                              description: 'On updates: the changed fields with their values before the change.',
                            },
                          },
                        },
                      },
                    },
                  ],
                },
              },
            },
          },
          responses: {
            '200': { description: 'Delivered: any 2xx within 10 seconds acknowledges the event.' },
          },
        },
      },
    ]),
  );
  return { ...document, webhooks };
}

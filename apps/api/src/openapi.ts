import { INestApplication } from '@nestjs/common';
import { DocumentBuilder, OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import { API_GUIDE_PATH, orderTags } from './swagger-ui/api-tags';
import { setupSwaggerUi } from './swagger-ui/swagger-ui';
import { TEMPLATE_DOCUMENT_SCHEMA, templateDocumentSchema } from './documents/document-templates.dto';
import { BODY_LIMIT_BYTES } from './http/json-body';
import { ErrorBodyDto } from './http/error-body.dto';
import { describeRoutes, ERROR_SCHEMA } from './http/route-docs';
import { exampleBodies } from './http/request-examples';
import { boundSchemas } from './http/schema-bounds';
import { describeFormats } from './http/schema-formats';
import { describeWebhooks } from './events/event-webhooks';

export const API_TITLE = 'Billing Platform API';

export function buildOpenApiDocument(app: INestApplication): OpenAPIObject {
  const config = new DocumentBuilder()
    .setOpenAPIVersion('3.1.0')
    .setTitle(API_TITLE)
    .setDescription(
      'Billing for finance and platform teams, in these parts (the tags below follow them in the order you would use them):\n\n' +
        '- **Customers and wallets**: customers, each with a primary prepaid wallet on a ledger (credits, debits, holds, ' +
        'transfers, FX rates), and top-ups through a payment provider.\n' +
        '- **Catalog**: costs, versioned products and plans, publishing their drafts (changes, cascades), subscriptions and migrations.\n' +
        '- **Documents**: document templates (invoice, credit note, quote, e-mail), workspace defaults, PDF previews, SVG thumbnails.\n' +
        '- **Identity and administration**: customer verifications, API keys, workspaces, users, sessions, approvals, the audit log.\n' +
        '- **Health**: liveness and readiness probes.\n\n' +
        'Every route lives under /v1 (and answers without it). ' +
        'Authenticate with `Authorization: Bearer <sk_live_…|sk_test_…|sess_…>`; select a workspace with `X-Workspace-Id`; ' +
        'send `Idempotency-Key` on every authenticated POST (optional on the template preview, a pure render). ' +
        `Errors share one body: see the ${ERROR_SCHEMA} schema; each operation lists the codes of each status it can answer. ` +
        `The conventions (authentication, workspaces, idempotency, errors, pagination, money, rate limits) are in the [API guide](${API_GUIDE_PATH}).\n\n` +
        'In this page: **Authorize** with a key (kept across reloads), then **Try it out** and **Execute**. Each Execute sends a fresh ' +
        '`Idempotency-Key` (a key you type is sent as typed), makes the example `external_id`, `reference` and `key` unique, ' +
        'and moves example dates to tomorrow, so every example works when executed again.',
    )
    .setVersion('1')
    .addBearerAuth(
      {
        type: 'http',
        scheme: 'bearer',
        bearerFormat: 'API key or session token',
        description: 'An API key (sk_live_…, sk_test_…) or a session token (sess_…).',
      },
      'bearer',
    )
    .build();
  // Relative: the document describes whichever host serves it (Swagger UI and clients resolve /v1/… against it).
  // x-internal and the environment words are what OWASP API9 (inventory) asks a server entry to declare.
  const server = {
    url: '/',
    description:
      'The server serving this document, in any environment (local, staging or production); sandbox and live workspaces share it.',
  };
  config.servers = [Object.assign(server, { 'x-internal': false })];
  const document = SwaggerModule.createDocument(app, config, { extraModels: [ErrorBodyDto] });
  // A JSON Schema the documents context owns (template_json), published as it validates it.
  document.components = {
    ...document.components,
    schemas: { ...document.components?.schemas, [TEMPLATE_DOCUMENT_SCHEMA]: templateDocumentSchema() },
  };
  return describeWebhooks(
    orderTags(boundSchemas(exampleBodies(describeFormats(describeRoutes(app, document))), BODY_LIMIT_BYTES)),
  );
}

/** OpenAPI 3.1 at /openapi.json and /openapi.yaml, Swagger UI at /docs. */
export function setupOpenApi(app: INestApplication): void {
  setupSwaggerUi(app, buildOpenApiDocument(app), API_TITLE);
}

import { INestApplication } from '@nestjs/common';
import { DocumentBuilder, OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import { TEMPLATE_DOCUMENT_SCHEMA, templateDocumentSchema } from './documents/document-templates.dto';
import { BODY_LIMIT_BYTES } from './http/json-body';
import { ErrorBodyDto } from './http/error-body.dto';
import { describeRoutes, ERROR_SCHEMA } from './http/route-docs';
import { exampleBodies } from './http/request-examples';
import { boundSchemas } from './http/schema-bounds';
import { describeFormats } from './http/schema-formats';

export const API_TITLE = 'Billing Platform API';

export function buildOpenApiDocument(app: INestApplication): OpenAPIObject {
  const config = new DocumentBuilder()
    .setOpenAPIVersion('3.1.0')
    .setTitle(API_TITLE)
    .setDescription(
      'Identity (workspaces, users, sessions, API keys, approvals, audit log), customers, prepaid wallets on a ledger ' +
        '(credits, debits, holds, transfers, FX rates, top-ups), and document templates (printed layouts and e-mails, ' +
        'defaults, PDF previews, SVG thumbnails). Every route lives under /v1 (and answers without it). ' +
        'Authenticate with `Authorization: Bearer <sk_live_…|sk_test_…|sess_…>`; select a workspace with `X-Workspace-Id`; ' +
        'send `Idempotency-Key` on every authenticated POST (optional on the template preview, a pure render). ' +
        `Errors share one body: see the ${ERROR_SCHEMA} schema; each operation lists the codes of each status it can answer.`,
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
  return declareTags(boundSchemas(exampleBodies(describeFormats(describeRoutes(app, document))), BODY_LIMIT_BYTES));
}

/** Every tag an operation uses (@ApiTags on the controllers), declared once at the top, sorted. */
function declareTags(document: OpenAPIObject): OpenAPIObject {
  const used = new Set<string>();
  for (const item of Object.values(document.paths)) {
    for (const operation of Object.values(item as Record<string, { tags?: unknown }>)) {
      if (operation && Array.isArray(operation.tags)) for (const tag of operation.tags) used.add(String(tag));
    }
  }
  const declared = new Set((document.tags ?? []).map((tag) => tag.name));
  document.tags = [
    ...(document.tags ?? []),
    ...[...used]
      .filter((tag) => !declared.has(tag))
      .sort()
      .map((name) => ({ name })),
  ];
  return document;
}

/** OpenAPI 3.1 at /openapi.json and Swagger UI at /docs. */
export function setupOpenApi(app: INestApplication): void {
  const document = buildOpenApiDocument(app);
  SwaggerModule.setup('docs', app, document, {
    useGlobalPrefix: false,
    jsonDocumentUrl: 'openapi.json',
    yamlDocumentUrl: 'openapi.yaml',
    customSiteTitle: API_TITLE,
  });
}

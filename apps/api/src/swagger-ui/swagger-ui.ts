import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { INestApplication } from '@nestjs/common';
import { OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import type { FastifyInstance } from 'fastify';
import { API_GUIDE_PATH } from './api-tags';
import { billingDocsPage } from './swagger-ui-page';

/** What the page's globals hold: Swagger UI's bundle and what billingDocsPage installed. */
interface Page {
  SwaggerUIBundle: { plugins: { DownloadUrl(system: unknown): unknown } };
  billingDocs: {
    requestInterceptor(request: unknown): unknown;
    plugin(system: unknown): unknown;
  };
}

/**
 * Swagger UI at /docs, the document at /openapi.json and /openapi.yaml, and the API guide the
 * document links to. The options' functions are serialized into the page by @nestjs/swagger
 * (toString), so each only forwards to what billingDocsPage installed in the page.
 */
export function setupSwaggerUi(app: INestApplication, document: OpenAPIObject, title: string): void {
  SwaggerModule.setup('docs', app, document, {
    useGlobalPrefix: false,
    jsonDocumentUrl: 'openapi.json',
    yamlDocumentUrl: 'openapi.yaml',
    customSiteTitle: title,
    customJsStr: `(${billingDocsPage.toString()})();`,
    swaggerOptions: {
      persistAuthorization: true,
      displayRequestDuration: true,
      requestInterceptor: (request: unknown) => (globalThis as unknown as Page).billingDocs.requestInterceptor(request),
      plugins: [
        (system: unknown) => (globalThis as unknown as Page).SwaggerUIBundle.plugins.DownloadUrl(system),
        (system: unknown) => (globalThis as unknown as Page).billingDocs.plugin(system),
      ],
    },
  });
  const guide = readFileSync(apiGuideFile(), 'utf8');
  (app.getHttpAdapter().getInstance() as FastifyInstance).get(API_GUIDE_PATH, (_request, reply) =>
    reply.type('text/plain; charset=utf-8').send(guide),
  );
}

/** docs/api-guide.md under the project root: found by walking up, from the sources and from dist/ alike. */
function apiGuideFile(): string {
  for (let dir = __dirname; ; dir = dirname(dir)) {
    const candidate = join(dir, 'docs', 'api-guide.md');
    if (existsSync(candidate)) return candidate;
    if (dirname(dir) === dir) throw new Error('docs/api-guide.md is missing.');
  }
}

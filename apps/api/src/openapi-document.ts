import { NestFactory } from '@nestjs/core';
import { NestFastifyApplication } from '@nestjs/platform-fastify';
import { OpenAPIObject } from '@nestjs/swagger';
import { AppModule } from './app.module';
import { loadConfig } from './config/app-config';
import { applyGlobalPrefix, createFastifyAdapter } from './configure-app';
import { buildOpenApiDocument } from './openapi';

/**
 * The document /openapi.json serves, built without a database or a listening server: Nest's
 * preview mode registers every module and controller (what the document is read from) but
 * instantiates no provider, so nothing connects. Same modules, same global prefix, same builder
 * as the running app; an e2e test asserts the two documents are equal.
 */
export async function generateOpenApiDocument(): Promise<OpenAPIObject> {
  const config = loadConfig({ LOG_LEVEL: 'silent' });
  const app = await NestFactory.create<NestFastifyApplication>(
    AppModule.forRoot({ config, databaseUrl: 'postgres://unused/preview', appSecret: 'unused-in-preview-mode' }),
    createFastifyAdapter(config),
    { preview: true, logger: false, abortOnError: false },
  );
  try {
    applyGlobalPrefix(app);
    return buildOpenApiDocument(app);
  } finally {
    await app.close();
  }
}

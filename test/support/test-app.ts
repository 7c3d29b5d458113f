import { DynamicModule, Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { NestFastifyApplication } from '@nestjs/platform-fastify';
import { Clock } from '@app/shared-kernel';
import { FastifyInstance } from 'fastify';
import { DestinationStream } from 'pino';
import request from 'supertest';
import TestAgent from 'supertest/lib/agent';
import { AppModule } from '../../apps/api/src/app.module';
import { loadConfig } from '../../apps/api/src/config/app-config';
import { configureApp, createFastifyAdapter } from '../../apps/api/src/configure-app';
import { createTestDatabase, TestDatabase } from './test-database';

export interface TestAppOptions {
  clock?: Clock;
  /** Environment overrides, validated like the real configuration. */
  env?: Record<string, string>;
  /** Receives the JSON log lines (the app logs nothing otherwise: LOG_LEVEL silent). */
  logDestination?: DestinationStream;
  /** Test-only modules (probes) mounted beside the real ones. */
  imports?: Array<Type | DynamicModule>;
  /** Runs on the fresh database before the application connects to it (settings, statistics). */
  beforeStart?: (database: TestDatabase) => Promise<void>;
  /** Another instance on an existing database (several servers, a restart); closing it keeps the database. */
  database?: TestDatabase;
}

export interface TestApp {
  app: NestFastifyApplication;
  http: TestAgent;
  database: TestDatabase;
  /** Every route Fastify registered, as "METHOD /path". */
  routes: string[];
  close(): Promise<void>;
}

export const TEST_APP_SECRET = 'test-app-secret-0123456789abcdef0123456789';

/** The real application, built by the same configureApp as main.ts, on a database of its own. */
export async function createTestApp(options: TestAppOptions = {}): Promise<TestApp> {
  const shared = options.database;
  const database = shared ?? (await createTestDatabase());
  if (!shared) await options.beforeStart?.(database);
  const config = loadConfig({ LOG_LEVEL: 'silent', RATE_LIMIT_PER_MINUTE: '0', ...options.env, DATABASE_URL: database.url });
  const adapter = createFastifyAdapter(config);
  const routes: string[] = [];
  (adapter.getInstance() as unknown as FastifyInstance).addHook('onRoute', (route) => {
    for (const method of [route.method].flat()) routes.push(`${method} ${route.url}`);
  });
  const root = AppModule.forRoot({
    config,
    databaseUrl: database.url,
    appSecret: TEST_APP_SECRET,
    clock: options.clock,
    logDestination: options.logDestination,
  });
  const app = await NestFactory.create<NestFastifyApplication>(
    { ...root, imports: [...(root.imports ?? []), ...(options.imports ?? [])] },
    adapter,
    { logger: false, rawBody: true },
  );
  await configureApp(app);
  await app.init();
  await app.getHttpAdapter().getInstance().ready();
  return {
    app,
    http: request(app.getHttpServer()),
    database,
    routes,
    close: async () => {
      await app.close();
      if (!shared) await database.drop();
    },
  };
}

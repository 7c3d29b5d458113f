import 'reflect-metadata';
import { CommandBus } from '@nestjs/cqrs';
import { NestFactory } from '@nestjs/core';
import { BootstrapIfEmptyCommand } from '@app/identity';
import { NestFastifyApplication } from '@nestjs/platform-fastify';
import { runMigrations } from '@app/shared-kernel';
import { AppModule } from './app.module';
import { AppConfig, ConfigError, loadConfig } from './config/app-config';
import { configureApp, createFastifyAdapter } from './configure-app';
import { ShutdownGate } from './http/shutdown-gate';
import { developmentAppSecret } from './runtime/app-secret';
import { Database, openDatabase } from './runtime/database';
import { EmbeddedDatabase } from './runtime/embedded-postgres';
import { EmbeddedPostgresError } from './runtime/embedded-postgres-error';
import { Connections, shutDown } from './runtime/graceful-shutdown';
import { rootKeyBanner } from './runtime/root-key-banner';
import { recordServerPid } from './runtime/server-pid';
import { startUpLogger } from './logging';
import { migrations } from '../../../migrations';

let say: (message: string, level?: 'info' | 'error') => void = (message) => process.stdout.write(`${message}\n`);

async function bootstrap(): Promise<void> {
  const startedAt = performance.now();
  const config = loadConfig(process.env);
  const logger = startUpLogger(config);
  say = (message, level = 'info') => logger[level](message);
  // A second `npm start` on the same data reads it and says so before building (scripts/running-server.js).
  if (!config.DATABASE_URL) recordServerPid(config.DATA_DIR, baseUrl(config));
  say(config.DATABASE_URL ? 'connecting to DATABASE_URL' : 'starting the embedded PostgreSQL');
  const database = await openDatabase(config, say);
  if (database.embedded) say(`embedded PostgreSQL ready (data in ${database.embedded.dataDir})`);
  try {
    await serve(config, database, startedAt);
  } catch (error) {
    // Never leave the embedded PostgreSQL running behind a failed start.
    await database.embedded?.stop();
    throw error;
  }
}

async function serve(config: AppConfig, { url: databaseUrl, embedded }: Database, startedAt: number): Promise<void> {
  const applied = await runMigrations(databaseUrl, migrations);
  say(applied.length > 0 ? `database migrated: ${applied.length} migrations applied` : 'database schema up to date');

  const app = await NestFactory.create<NestFastifyApplication>(
    AppModule.forRoot({ config, databaseUrl, appSecret: config.APP_SECRET ?? developmentAppSecret(config.DATA_DIR) }),
    createFastifyAdapter(config),
    // Webhook signatures are computed over the exact bytes received.
    { bufferLogs: true, rawBody: true },
  );
  await configureApp(app);
  await app.init();
  const bootstrapped = await app.get(CommandBus).execute(new BootstrapIfEmptyCommand());
  stopGracefullyOnSignals(app, config, embedded);
  const base = baseUrl(config);
  try {
    await app.listen(config.PORT, config.HOST ?? '127.0.0.1');
  } catch (error) {
    if (bootstrapped) process.stdout.write(rootKeyBanner(bootstrapped, base));
    throw error;
  }
  say(`billing API ready in ${Math.round(performance.now() - startedAt)} ms on ${base} — Swagger UI: ${base}/docs`);
  // Last, so the keys are not lost among the start-up lines.
  if (bootstrapped) process.stdout.write(rootKeyBanner(bootstrapped, base));
}

function baseUrl(config: AppConfig): string {
  const host = config.HOST ?? '127.0.0.1';
  return `http://${host === '0.0.0.0' ? '127.0.0.1' : host}:${config.PORT}`;
}

/** See runtime/graceful-shutdown.ts and README "Shutdown". */
function stopGracefullyOnSignals(app: NestFastifyApplication, config: AppConfig, embedded: EmbeddedDatabase | undefined): void {
  const connections = new Connections(app.getHttpServer());
  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    shutDown(signal, {
      gate: app.get(ShutdownGate),
      connections,
      drainMs: config.SHUTDOWN_DRAIN_MS ?? 0,
      timeoutMs: config.SHUTDOWN_TIMEOUT_MS,
      closeApp: () => app.close(),
      stopDatabase: async () => embedded?.stop(),
      say,
      exit: (code) => process.exit(code),
    }).catch((error: unknown) => {
      say(`shutdown failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`, 'error');
      // Never leave the embedded PostgreSQL running behind a failed shutdown.
      void Promise.resolve(embedded?.stop()).finally(() => process.exit(1));
    });
  };
  // `on`, not `once`: on Ctrl-C under `npm start` the signal arrives twice (npm forwards it too).
  process.on('SIGTERM', (signal) => stop(signal));
  process.on('SIGINT', (signal) => stop(signal));
}

bootstrap().catch((error: unknown) => {
  process.stderr.write(
    `${error instanceof ConfigError || error instanceof EmbeddedPostgresError ? error.message : error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exit(1);
});

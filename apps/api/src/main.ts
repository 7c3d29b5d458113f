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

function say(message: string, level: 'info' | 'error' = 'info'): void {
  process.stdout.write(`${JSON.stringify({ level, time: new Date().toISOString(), msg: message })}\n`);
}

async function bootstrap(): Promise<void> {
  const startedAt = performance.now();
  const config = loadConfig(process.env);
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
  const applied = await runMigrations(databaseUrl);
  if (applied.length > 0) say(`applied migrations: ${applied.join(', ')}`);

  const app = await NestFactory.create<NestFastifyApplication>(
    AppModule.forRoot({ config, databaseUrl, appSecret: config.APP_SECRET ?? developmentAppSecret(config.DATA_DIR) }),
    createFastifyAdapter(config),
    // Webhook signatures are computed over the exact bytes received.
    { bufferLogs: true, rawBody: true },
  );
  await configureApp(app);
  await app.init();
  const bootstrapped = await app.get(CommandBus).execute(new BootstrapIfEmptyCommand());
  if (bootstrapped) process.stdout.write(rootKeyBanner(bootstrapped));
  stopGracefullyOnSignals(app, config, embedded);
  const host = config.HOST ?? '127.0.0.1';
  await app.listen(config.PORT, host);
  const base = `http://${host === '0.0.0.0' ? '127.0.0.1' : host}:${config.PORT}`;
  say(`billing API ready in ${Math.round(performance.now() - startedAt)} ms on ${base} — Swagger UI: ${base}/docs`);
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

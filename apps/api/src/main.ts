import 'reflect-metadata';
import { CommandBus } from '@nestjs/cqrs';
import { NestFactory } from '@nestjs/core';
import { BootstrapIfEmptyCommand } from '@app/identity';
import { NestFastifyApplication } from '@nestjs/platform-fastify';
import { runMigrations } from '@app/shared-kernel';
import { AppModule } from './app.module';
import { AppConfig, ConfigError, loadConfig } from './config/app-config';
import { configureApp, createFastifyAdapter } from './configure-app';
import { developmentAppSecret } from './runtime/app-secret';
import { Database, openDatabase } from './runtime/database';
import { EmbeddedDatabase } from './runtime/embedded-postgres';
import { EmbeddedPostgresError } from './runtime/embedded-postgres-error';
import { rootKeyBanner } from './runtime/root-key-banner';

function say(message: string): void {
  process.stdout.write(`${JSON.stringify({ level: 'info', time: new Date().toISOString(), msg: message })}\n`);
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
  await configureApp(app, config);
  await app.init();
  const bootstrapped = await app.get(CommandBus).execute(new BootstrapIfEmptyCommand());
  if (bootstrapped) process.stdout.write(rootKeyBanner(bootstrapped));
  stopGracefullyOnSignals(app, embedded);
  const host = config.HOST ?? '127.0.0.1';
  await app.listen(config.PORT, host);
  const base = `http://${host === '0.0.0.0' ? '127.0.0.1' : host}:${config.PORT}`;
  say(`billing API ready in ${Math.round(performance.now() - startedAt)} ms on ${base} — Swagger UI: ${base}/docs`);
}

/** Finish in-flight requests, stop workers, close the pool, then the embedded database. */
function stopGracefullyOnSignals(app: NestFastifyApplication, embedded: EmbeddedDatabase | undefined): void {
  let stopping = false;
  const stop = async (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    say(`${signal} received: shutting down`);
    await app.close();
    await embedded?.stop();
    process.exit(0);
  };
  // `on`, not `once`: on Ctrl-C under `npm start` the signal arrives twice (npm forwards it too).
  process.on('SIGTERM', (signal) => void stop(signal));
  process.on('SIGINT', (signal) => void stop(signal));
}

bootstrap().catch((error: unknown) => {
  process.stderr.write(
    `${error instanceof ConfigError || error instanceof EmbeddedPostgresError ? error.message : error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exit(1);
});

import 'reflect-metadata';
import { parseArgs } from 'node:util';
import { CommandBus } from '@nestjs/cqrs';
import { NestFactory } from '@nestjs/core';
import { BootstrapOrganizationCommand } from '@app/identity';
import { DomainError, runMigrations } from '@app/shared-kernel';
import { AppModule } from './app.module';
import { ConfigError, loadConfig } from './config/app-config';
import { developmentAppSecret } from './runtime/app-secret';
import { openDatabase } from './runtime/database';
import { EmbeddedPostgresError } from './runtime/embedded-postgres-error';
import { migrations } from '../../../migrations';

const USAGE = 'usage: npm run cli -- bootstrap --organization NAME [--email E --password P] [--json]';

export interface CliIo {
  env: NodeJS.ProcessEnv;
  stdout: (text: string) => void;
  stderr: (text: string) => void;
}

/** Operator commands. `bootstrap` prints exactly one JSON line on stdout (with --json). */
export async function runCli(args: string[], io: CliIo): Promise<void> {
  const { positionals, values } = parseCliArgs(args);
  if (positionals[0] !== 'bootstrap' || !values.organization || Boolean(values.email) !== Boolean(values.password)) {
    throw new ConfigError(USAGE);
  }
  const config = loadConfig({ ...io.env, LOG_LEVEL: 'silent' });
  const database = await openDatabase(config, (message) => io.stderr(`${message}\n`), { reuseRunning: true });
  try {
    await runMigrations(database.url, migrations);
    const app = await NestFactory.createApplicationContext(
      AppModule.forRoot({
        config,
        databaseUrl: database.url,
        appSecret: config.APP_SECRET ?? developmentAppSecret(config.DATA_DIR),
      }),
      { logger: false },
    );
    try {
      const owner = values.email && values.password ? { email: values.email, password: values.password } : undefined;
      const result = await app.get(CommandBus).execute(new BootstrapOrganizationCommand(values.organization, owner));
      io.stdout(values.json ? `${JSON.stringify(result)}\n` : `${JSON.stringify(result, null, 2)}\n`);
    } finally {
      await app.close();
    }
  } finally {
    await database.embedded?.stop();
  }
}

/** An unknown option or a missing value is a usage error too, not a stack trace. */
function parseCliArgs(args: string[]) {
  try {
    return parseArgs({
      args,
      allowPositionals: true,
      options: {
        organization: { type: 'string' },
        email: { type: 'string' },
        password: { type: 'string' },
        json: { type: 'boolean' },
      },
    });
  } catch (error) {
    if (!String((error as { code?: unknown }).code).startsWith('ERR_PARSE_ARGS_')) throw error;
    throw new ConfigError(`${(error as Error).message}\n${USAGE}`);
  }
}

export function cliErrorMessage(error: unknown): string {
  return error instanceof ConfigError || error instanceof DomainError || error instanceof EmbeddedPostgresError
    ? error.message
    : error instanceof Error
      ? (error.stack ?? error.message)
      : String(error);
}

import 'reflect-metadata';
import { parseArgs } from 'node:util';
import { NestFactory } from '@nestjs/core';
import { workerActor } from './worker-actor';
import { WorkerModule } from './worker.module';
import { WorkerOperations } from './worker-operations';

const USAGE =
  'usage: node dist/apps/worker/apps/worker/src/main.js (credit --wallet ID --amount DECIMAL | publish-plan --name NAME)\n' +
  '  env: DATABASE_URL, APP_SECRET, WORKER_ORGANIZATION_ID, WORKER_WORKSPACE_ID, WORKER_WORKSPACE_MODE (live|sandbox),\n' +
  '       WORKER_API_KEY_ID, WORKER_SCOPES (space-separated)';

function required(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set\n${USAGE}`);
  return value;
}

/** The example worker: one operation through the command bus, its result as one JSON line. */
async function main(): Promise<void> {
  const { positionals, values } = parseArgs({
    allowPositionals: true,
    options: { wallet: { type: 'string' }, amount: { type: 'string' }, name: { type: 'string' } },
  });
  const mode = required('WORKER_WORKSPACE_MODE');
  if (mode !== 'live' && mode !== 'sandbox') throw new Error(`WORKER_WORKSPACE_MODE must be live or sandbox\n${USAGE}`);
  // The worker's operator decides whom it acts for: the handlers trust this Actor (worker-actor.ts).
  const actor = workerActor({
    organizationId: required('WORKER_ORGANIZATION_ID'),
    workspaceId: required('WORKER_WORKSPACE_ID'),
    workspaceMode: mode,
    apiKeyId: required('WORKER_API_KEY_ID'),
    scopes: required('WORKER_SCOPES').split(/\s+/),
  });
  const app = await NestFactory.createApplicationContext(
    WorkerModule.forRoot({ databaseUrl: required('DATABASE_URL'), appSecret: required('APP_SECRET') }),
    { logger: ['error', 'warn'] },
  );
  try {
    const operations = app.get(WorkerOperations);
    if (positionals[0] === 'credit' && values.wallet && values.amount) {
      console.log(JSON.stringify(await operations.creditWallet(actor, values.wallet, values.amount)));
    } else if (positionals[0] === 'publish-plan' && values.name) {
      console.log(JSON.stringify(await operations.publishPlan(actor, values.name)));
    } else {
      throw new Error(USAGE);
    }
  } finally {
    await app.close();
  }
}

main().catch((error: Error) => {
  console.error(error.message);
  process.exitCode = 1;
});

import { ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { Agent, request as httpRequest } from 'node:http';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Client } from 'pg';
import { createTestDatabase, TestDatabase } from '../support/test-database';

/**
 * Graceful shutdown under load, against the real process (apps/api/src/main.ts, spawned from its
 * sources): SIGTERM in the middle of a debit load on kept-alive connections. Nothing is random
 * (no seed); sizes come from the environment with CI defaults.
 */
const CONNECTIONS = Number(process.env.SHUTDOWN_CONNECTIONS ?? 16);
const DRAIN_MS = Number(process.env.SHUTDOWN_DRAIN_MS_UNDER_TEST ?? 1000);
const LOAD_BEFORE_SIGNAL_MS = Number(process.env.SHUTDOWN_LOAD_BEFORE_SIGNAL_MS ?? 1500);
const ROOT = join(__dirname, '..', '..');

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: any;
}
type Outcome = Answer | { error: string };

interface Attempt {
  sentAt: number;
  answeredAt: number;
  outcome: Outcome;
  /** The request went out on a connection that had already carried one. */
  reused: boolean;
}

const isAnswer = (outcome: Outcome): outcome is Answer => 'status' in outcome;

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** One HTTP exchange; a transport failure becomes `{ error: code }` (ECONNRESET, ECONNREFUSED, …). */
function exchange(
  port: number,
  options: { method: string; path: string; headers?: Record<string, string>; body?: unknown; agent: Agent | false },
): Promise<{ outcome: Outcome; reused: boolean }> {
  return new Promise((resolve) => {
    const payload = options.body === undefined ? undefined : JSON.stringify(options.body);
    let reused = false;
    const req = httpRequest(
      {
        host: '127.0.0.1',
        port,
        method: options.method,
        path: options.path,
        agent: options.agent,
        headers: { ...options.headers, ...(payload !== undefined && { 'content-type': 'application/json' }) },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => {
          let body: unknown = text;
          try {
            body = JSON.parse(text);
          } catch {
            // not JSON: kept as text, and the assertions say so
          }
          resolve({ outcome: { status: res.statusCode ?? 0, headers: res.headers, body }, reused });
        });
        res.on('error', (error: NodeJS.ErrnoException) => resolve({ outcome: { error: error.code ?? error.message }, reused }));
      },
    );
    req.on('socket', (socket) => {
      reused = (req as unknown as { reusedSocket: boolean }).reusedSocket;
      void socket;
    });
    req.on('error', (error: NodeJS.ErrnoException) => resolve({ outcome: { error: error.code ?? error.message }, reused }));
    req.end(payload);
  });
}

interface Server {
  port: number;
  child: ChildProcess;
  output: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; at: number }>;
}

/**
 * Starts the server on a free port, ready once it says so itself (another test's server may take
 * the port between freePort() and listen: that start fails with EADDRINUSE and is retried).
 */
async function startServer(database: TestDatabase): Promise<Server> {
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    let output = '';
    const child = spawn('sh', ['scripts/node24.sh', '-r', './test/support/register-ts.js', 'apps/api/src/main.ts'], {
      cwd: ROOT,
      env: {
        ...process.env,
        DATABASE_URL: database.url,
        PORT: String(port),
        HOST: '127.0.0.1',
        NODE_ENV: 'test',
        LOG_LEVEL: 'fatal',
        RATE_LIMIT_PER_MINUTE: '0',
        SHUTDOWN_DRAIN_MS: String(DRAIN_MS),
        SHUTDOWN_TIMEOUT_MS: String(DRAIN_MS + 20_000),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout!.on('data', (chunk) => (output += chunk));
    child.stderr!.on('data', (chunk) => (output += chunk));
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; at: number }>((resolve) =>
      child.once('exit', (code, signal) => resolve({ code, signal, at: performance.now() })),
    );
    const deadline = Date.now() + 60_000;
    while (!output.includes('billing API ready') && child.exitCode === null) {
      if (Date.now() > deadline) {
        child.kill('SIGKILL');
        throw new Error(`server not ready within 60 s:\n${output}`);
      }
      await sleep(50);
    }
    if (child.exitCode === null) return { child, output: () => output, exited, port };
    if (!output.includes('EADDRINUSE') || attempt === 3) throw new Error(`server exited with ${child.exitCode}:\n${output}`);
  }
}

describe('Graceful shutdown under load (SIGTERM during a debit load on kept-alive connections)', () => {
  let database: TestDatabase;
  let server: Server | undefined;

  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(async () => {
    if (server && server.child.exitCode === null && server.child.signalCode === null) {
      server.child.kill('SIGKILL');
      await server.exited;
    }
    await database?.drop();
  });

  it('turns readiness 503 first, answers every accepted request, refuses with the contract body, resets nothing and exits 0', async () => {
    server = await startServer(database);
    const { port } = server;
    const liveKey = /sk_live_[0-9A-Za-z]{49}/.exec(server.output())?.[0];
    if (!liveKey) throw new Error(`no root key in the server output:\n${server.output()}`);
    const auth = { authorization: `Bearer ${liveKey}` };

    // One funded wallet per connection, so the load measures shutdown, not one row lock.
    const setupAgent = new Agent({ keepAlive: true, maxSockets: 4 });
    const wallets = await Promise.all(
      Array.from({ length: CONNECTIONS }, async (_, n) => {
        const created = await exchange(port, {
          method: 'POST',
          path: '/v1/customers',
          headers: { ...auth, 'idempotency-key': randomUUID() },
          body: { name: `Shutdown customer ${n}`, currency: 'EUR' },
          agent: setupAgent,
        });
        if (!isAnswer(created.outcome) || created.outcome.status !== 201) throw new Error(JSON.stringify(created.outcome));
        const wallet: string = created.outcome.body.primary_wallet_id;
        const credited = await exchange(port, {
          method: 'POST',
          path: `/v1/wallets/${wallet}/credit`,
          headers: { ...auth, 'idempotency-key': randomUUID() },
          body: { amount: '10000.00' },
          agent: setupAgent,
        });
        if (!isAnswer(credited.outcome) || credited.outcome.status !== 200) throw new Error(JSON.stringify(credited.outcome));
        return wallet;
      }),
    );
    setupAgent.destroy();

    // Readiness, polled on fresh connections as a load balancer would (every 10 ms here, to time
    // the turn; once it saw 503 it probes at the pace of Retry-After, as a marked-down target is).
    // It stops at its first failure (the listener is gone, at the latest once the process exited).
    const readiness: Attempt[] = [];
    const poller = (async () => {
      for (;;) {
        const sentAt = performance.now();
        const { outcome, reused } = await exchange(port, { method: 'GET', path: '/health/ready', agent: false });
        readiness.push({ sentAt, answeredAt: performance.now(), outcome, reused });
        if (!isAnswer(outcome)) return; // the listener is gone
        await sleep(outcome.status === 503 ? Number(outcome.headers['retry-after'] ?? 1) * 1000 : 10);
      }
    })();

    // The load: each worker on one kept-alive connection; after `Connection: close` the agent
    // reconnects; after a 503 it waits Retry-After; once the listener refuses, it stops.
    const debits: Attempt[] = [];
    const workers = wallets.map(async (wallet) => {
      const agent = new Agent({ keepAlive: true, maxSockets: 1 });
      try {
        for (;;) {
          const sentAt = performance.now();
          const { outcome, reused } = await exchange(port, {
            method: 'POST',
            path: `/v1/wallets/${wallet}/debit`,
            headers: { ...auth, 'idempotency-key': randomUUID() },
            body: { amount: '0.01' },
            agent,
          });
          debits.push({ sentAt, answeredAt: performance.now(), outcome, reused });
          if (!isAnswer(outcome)) {
            if (outcome.error === 'ECONNREFUSED') return;
            continue; // a reset: counted, and the client retries as it would
          }
          if (outcome.status === 503) await sleep(Number(outcome.headers['retry-after'] ?? 1) * 1000);
        }
      } finally {
        agent.destroy();
      }
    });

    await sleep(LOAD_BEFORE_SIGNAL_MS);
    const signalledAt = performance.now();
    server.child.kill('SIGTERM');
    const exit = await server.exited;
    await Promise.all(workers);
    await poller;

    // What the clients saw.
    const answers = debits.filter((attempt) => isAnswer(attempt.outcome));
    const ok = answers.filter((attempt) => (attempt.outcome as Answer).status === 200);
    const refused = answers.filter((attempt) => (attempt.outcome as Answer).status === 503);
    const other = answers.filter((attempt) => ![200, 503].includes((attempt.outcome as Answer).status));
    const failures = debits.filter((attempt) => !isAnswer(attempt.outcome) && attempt.outcome.error !== 'ECONNREFUSED');
    const connectRefused = debits.filter((attempt) => !isAnswer(attempt.outcome) && attempt.outcome.error === 'ECONNREFUSED');
    const firstNotReady = readiness.find((attempt) => isAnswer(attempt.outcome) && attempt.outcome.status === 503);
    const listenerGone = readiness.find((attempt) => !isAnswer(attempt.outcome));
    // The server closes connections only while draining, so a 2xx with `Connection: close` was
    // served while readiness said 503 (on a loaded machine the probe may see the 503 late).
    const servedDuringDrain = ok.filter((attempt) => (attempt.outcome as Answer).headers.connection === 'close');
    const lastAnswerAt = Math.max(...answers.map((attempt) => attempt.answeredAt));

    const ledger = new Client({ connectionString: database.url });
    await ledger.connect();
    const posted = await ledger
      .query<{ count: string }>(`SELECT count(*) FROM wallet_transactions WHERE type = 'debit'`)
      .finally(() => ledger.end());
    const postedDebits = Number(posted.rows[0].count);

    console.log(
      [
        `graceful shutdown: ${CONNECTIONS} connections, drain ${DRAIN_MS} ms, SIGTERM after ${LOAD_BEFORE_SIGNAL_MS} ms of load`,
        `  debits sent ${debits.length}: answered 2xx ${ok.length} (${servedDuringDrain.length} during the drain), ` +
          `refused 503 ${refused.length}, other statuses ${other.length}, reset/no answer ${failures.length} ` +
          `(${[...new Set(failures.map((attempt) => (attempt.outcome as { error: string }).error))].join(', ') || 'none'}), ` +
          `connection refused after close ${connectRefused.length}`,
        `  posted debits in the ledger ${postedDebits}; readiness 503 after ${firstNotReady ? Math.round(firstNotReady.answeredAt - signalledAt) : '–'} ms, ` +
          `exit ${exit.code ?? exit.signal} after ${Math.round(exit.at - signalledAt)} ms; the server's account:`,
        ...server
          .output()
          .split('\n')
          .filter((line) =>
            /draining for|drain over|every connection closed|shutdown complete|shutdown did not finish/.test(line),
          )
          .map((line) => `    ${(JSON.parse(line) as { msg: string }).msg}`),
      ].join('\n'),
    );

    // Every property is checked and every violation listed, so one run shows all that is wrong.
    const violations: unknown[] = [];
    const check = (holds: boolean, violation: () => unknown) => holds || violations.push(violation());

    // No request that reached the server went unanswered; the process exited 0 after the last answer.
    check(failures.length === 0, () => ({
      'requests reset or unanswered': failures.map((a) => ({ ...a.outcome, reused_connection: a.reused })),
    }));
    check(other.length === 0, () => ({ 'statuses other than 200 and 503': other.map((a) => a.outcome) }));
    check(exit.code === 0 && exit.signal === null, () => ({ exit: { code: exit.code, signal: exit.signal } }));
    check(exit.at >= lastAnswerAt, () => 'the process exited before its last answer');
    check(server!.output().includes('shutdown complete'), () => 'no "shutdown complete" in the log');

    // Readiness turned 503 before the listener closed, and the rest was still served meanwhile,
    // each answer closing its connection.
    // A probe answered before the signal must say 200; one still in flight when it came may
    // already see the drain (the server cannot know when the probe left the client).
    const answeredBeforeSignal = readiness.filter((a) => a.answeredAt < signalledAt);
    check(
      answeredBeforeSignal.length > 0 && answeredBeforeSignal.every((a) => isAnswer(a.outcome) && a.outcome.status === 200),
      () => ({
        'readiness was not 200 before SIGTERM': answeredBeforeSignal.filter(
          (a) => !isAnswer(a.outcome) || a.outcome.status !== 200,
        ),
      }),
    );
    check(firstNotReady !== undefined, () => 'readiness never answered 503');
    check(listenerGone !== undefined, () => 'the listener never closed');
    check(listenerGone === undefined || (listenerGone.outcome as { error: string }).error === 'ECONNREFUSED', () => ({
      'a readiness probe failed otherwise than by a refused connection': listenerGone!.outcome,
    }));
    check(
      firstNotReady !== undefined && listenerGone !== undefined && firstNotReady.answeredAt < listenerGone.sentAt,
      () => 'readiness did not answer 503 before the listener closed',
    );
    check(servedDuringDrain.length > 0, () => 'no debit was served while readiness answered 503 (no drain)');
    const keptAlive = answers.filter(
      (a) =>
        firstNotReady !== undefined &&
        a.sentAt > firstNotReady.answeredAt &&
        (a.outcome as Answer).headers.connection !== 'close',
    );
    check(keptAlive.length === 0, () => ({ 'answers during the drain without Connection: close': keptAlive.length }));

    // Every refusal (debit or readiness) is the contract's error with Retry-After.
    const refusals = [...refused, ...readiness.filter((a) => isAnswer(a.outcome) && a.outcome.status === 503)];
    for (const { outcome } of refusals) {
      const { headers, body } = outcome as Answer;
      const error = body?.error;
      const contract =
        headers['retry-after'] === '1' &&
        headers.connection === 'close' &&
        error?.type === 'api_error' &&
        error?.code === 'SHUTTING_DOWN' &&
        error?.status === 503 &&
        typeof error?.message === 'string' &&
        error?.request_id === headers['request-id'] &&
        error?.details?.retry_after_seconds === 1;
      check(contract, () => ({
        "a 503 that is not the contract's SHUTTING_DOWN with Retry-After": {
          retry_after: headers['retry-after'] ?? null,
          connection: headers.connection ?? null,
          body,
        },
      }));
    }

    // Every 2xx is in the ledger and nothing is in the ledger that was not answered 2xx.
    check(postedDebits === ok.length, () => ({ 'posted debits': postedDebits, 'answered 2xx': ok.length }));

    expect(violations).toEqual([]);
  });
});

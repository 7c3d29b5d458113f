import { createConnection, createServer, Server, Socket } from 'node:net';
import { Client } from 'pg';
import { PgNotifications, PlatformOptions } from '@app/shared-kernel';
import { createTestDatabase, TestDatabase } from '../../support/test-database';

/**
 * The LISTEN connection across a database outage (found by the crash script, npm run test:crash):
 * while PostgreSQL was down every failed reconnect was retried twice, so the attempts doubled each
 * round and, once it was back, thousands of listener connections exhausted max_connections.
 */
describe('PgNotifications across a database outage', () => {
  let database: TestDatabase;
  let gate: Gate;
  let notifications: PgNotifications;

  beforeAll(async () => {
    database = await createTestDatabase();
    gate = await Gate.open(new URL(database.url));
  });
  afterAll(async () => {
    await notifications?.onApplicationShutdown();
    await gate.close();
    await database.drop();
  });

  it('retries one attempt at a time while the database is away, then listens on exactly one connection again', async () => {
    const url = new URL(database.url);
    url.host = `127.0.0.1:${gate.port}`;
    const options: PlatformOptions = {
      databaseUrl: url.toString(),
      appSecret: 'x'.repeat(40),
      environment: 'test',
      idempotencyResponseMaxBytes: 1024,
    };
    notifications = new PgNotifications(options);
    const received: string[] = [];
    let resubscribed = 0;
    notifications.subscribe('crash_probe', {
      onNotification: (payload) => received.push(payload),
      onResubscribe: () => (resubscribed += 1),
    });
    await notifications.onApplicationBootstrap();

    gate.shut();
    const before = gate.attempts;
    await sleep(7_000);
    // One chain: the first retry after 0.5 s, then one every 2 s (the doubling chains made 94 attempts here).
    expect(gate.attempts - before).toBeLessThanOrEqual(6);

    gate.reopen();
    await waitFor(async () => (await listeners(database.url)) === 1 && resubscribed >= 2);
    await sleep(3_000);
    expect(await listeners(database.url)).toBe(1);
    await notify(database.url, 'crash_probe', 'after the outage');
    await waitFor(async () => received.includes('after the outage'));
  });
});

/** A TCP gate in front of PostgreSQL: open, it forwards; shut, it cuts every connection and refuses new ones at once. */
class Gate {
  attempts = 0;
  private closed = false;
  private readonly sockets = new Set<Socket>();

  private constructor(
    private readonly server: Server,
    private readonly target: URL,
  ) {}

  static async open(target: URL): Promise<Gate> {
    const server = createServer();
    const gate = new Gate(server, target);
    server.on('connection', (socket) => gate.accept(socket));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return gate;
  }

  get port(): number {
    return (this.server.address() as { port: number }).port;
  }

  shut(): void {
    this.closed = true;
    for (const socket of this.sockets) socket.destroy();
  }

  reopen(): void {
    this.closed = false;
  }

  close(): Promise<void> {
    this.shut();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  private accept(socket: Socket): void {
    this.attempts += 1;
    if (this.closed) {
      socket.destroy();
      return;
    }
    const upstream = createConnection(Number(this.target.port), this.target.hostname);
    for (const [a, b] of [
      [socket, upstream],
      [upstream, socket],
    ]) {
      this.sockets.add(a);
      a.on('error', () => b.destroy());
      a.on('close', () => {
        this.sockets.delete(a);
        b.destroy();
      });
      a.pipe(b);
    }
  }
}

async function listeners(url: string): Promise<number> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'billing-api-listener'`,
    );
    return rows[0].n;
  } finally {
    await client.end();
  }
}

async function notify(url: string, channel: string, payload: string): Promise<void> {
  const client = new Client({ connectionString: url });
  await client.connect();
  await client.query('SELECT pg_notify($1, $2)', [channel, payload]);
  await client.end();
}

async function waitFor(condition: () => Promise<boolean>, ms = 20_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error('timed out');
    await sleep(100);
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

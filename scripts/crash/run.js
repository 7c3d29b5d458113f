'use strict';
// Crash safety (quality bar R4). Runs a mixed load — credits, debits, holds (create, capture,
// release, expiry), transfers, plan publishes and product publishes that cascade into plans —
// against the real server, and in cycles injects one fault, rotating:
//   kill      SIGKILL of the server
//   pg-stop   PostgreSQL immediate shutdown (no checkpoint; crash recovery on restart)
//   cut-before  the connections to PostgreSQL cut when a COMMIT is sent, before it reaches the database
//   cut-after   the COMMIT reaches the database, its CommandComplete is dropped and the connections cut
// then restarts whatever died, replays every write of the cycle with its Idempotency-Key and checks
// the effects and the invariants (see checks.js). Prints figures; exits 1 on any violation.
//
// Webhook deliveries run through all of it: a local receiver deduplicating by webhook-id is
// subscribed to every event, and at the end every committed event must have reached it, once after
// deduplication, and nothing else (see webhooks.js).
//
// Environment: CRASH_CYCLES (8), CRASH_CLIENTS (8), CRASH_WALLETS (12), CRASH_LOAD_MS (2500, load
// per cycle before the fault), SEED (random; printed), CRASH_STUCK_SECONDS (180: how old a
// non-terminal hold/change/cascade/outbox row may be; jobs a killed server had fetched come back
// after pg-boss's heartbeat timeout and retry backoff, about a minute), CRASH_DELIVERY_SECONDS (660: how
// long the end waits for every committed event to be delivered: an attempt a fault interrupted is
// queued again by the minutely sweep once its 60 s lease expires, a delivery whose jobs were lost
// or never queued once it is a minute overdue), CRASH_VERBOSE=1 (each cycle's line).
const { randomBytes } = require('node:crypto');
const { mkdtempSync, rmSync } = require('node:fs');
const { tmpdir } = require('node:os');
const { join } = require('node:path');
const { Pool, Client: PgClient } = require('pg');
const { AppProcess } = require('./app');
const { Cluster, sleep } = require('./cluster');
const { PgProxy } = require('./proxy');
const { Api, Client, createFixtures } = require('./load');
const { effectViolations, replay, stateViolations } = require('./checks');
const { DeliveryCheck } = require('./webhooks');

const CYCLES = Number(process.env.CRASH_CYCLES ?? 8);
const CLIENTS = Number(process.env.CRASH_CLIENTS ?? 8);
const WALLETS = Number(process.env.CRASH_WALLETS ?? 12);
const LOAD_MS = Number(process.env.CRASH_LOAD_MS ?? 2_500);
const STUCK_SECONDS = Number(process.env.CRASH_STUCK_SECONDS ?? 180);
const DELIVERY_SECONDS = Number(process.env.CRASH_DELIVERY_SECONDS ?? 660);
const SEED = Number(process.env.SEED ?? randomBytes(4).readUInt32BE(0));
const VERBOSE = process.env.CRASH_VERBOSE === '1';
const CONNECTIONS = `SELECT application_name, state, count(*)::int AS n FROM pg_stat_activity WHERE backend_type = 'client backend' GROUP BY 1, 2 ORDER BY 3 DESC`;
const FAULTS = ['kill', 'pg-stop', 'cut-before', 'cut-after'];

/** mulberry32: a small seeded generator, so SEED=<n> replays the same choices. */
function generator(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

async function main() {
  const started = Date.now();
  const random = generator(SEED);
  console.log(
    `crash safety: ${CYCLES} cycles, ${CLIENTS} clients, ${WALLETS} wallets, ${LOAD_MS} ms load per cycle, SEED=${SEED}`,
  );
  const cluster = await Cluster.create();
  const dataDir = mkdtempSync(join(tmpdir(), 'billing-crash-app-'));
  let app;
  let proxy;
  let db;
  let deliveries;
  // Ctrl-C or a CI timeout: leave no server or PostgreSQL behind.
  for (const signal of ['SIGINT', 'SIGTERM']) {
    process.once(signal, () => {
      if (app?.alive) process.kill(-app.child.pid, 'SIGKILL');
      cluster.stop().finally(() => {
        cluster.remove();
        rmSync(dataDir, { recursive: true, force: true });
        process.exit(130);
      });
    });
  }
  try {
    await cluster.start();
    const admin = new PgClient({ connectionString: cluster.url() });
    await admin.connect();
    await admin.query('CREATE DATABASE billing');
    await admin.end();
    proxy = new PgProxy(cluster.port);
    const proxyPort = await proxy.listen();
    db = new Pool({ connectionString: cluster.url(cluster.port, 'billing'), max: 2 });
    db.on('error', () => undefined);
    const port = await require(join(__dirname, '../../dist/apps/api/apps/api/src/runtime/postgres-server')).freePort();
    app = new AppProcess({
      DATABASE_URL: cluster.url(proxyPort, 'billing'),
      PORT: String(port),
      HOST: '127.0.0.1',
      APP_SECRET: randomBytes(32).toString('hex'),
      DATA_DIR: dataDir,
      LOG_LEVEL: 'fatal',
      RATE_LIMIT_PER_MINUTE: '0',
      DATABASE_POOL_SIZE: '10',
    });
    await app.start();
    if (!app.rootKey) throw new Error('the first start printed no root key');
    const api = new Api(app.base, app.rootKey);
    deliveries = await new DeliveryCheck().start(api, db);
    const fixtures = await createFixtures(api, { clients: CLIENTS, wallets: WALLETS });
    console.log(`set-up: cluster, server and fixtures in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    const [{ organization_id: organizationId }] = (
      await db.query('SELECT organization_id FROM wallets WHERE id = $1', [fixtures.walletIds[0]])
    ).rows;

    const log = {
      seed: SEED,
      entries: [],
      sent: 0,
      acknowledged: 0,
      refused: 0,
      unanswered: 0,
      serverErrors: {},
      stagingFailures: 0,
    };
    const stats = {
      replays: 0,
      doneBeforeFault: 0,
      doneByReplay: 0,
      faults: Object.fromEntries(FAULTS.map((f) => [f, 0])),
      cutsNotFired: 0,
    };
    const violations = [];
    const clients = Array.from({ length: CLIENTS }, (_, i) => new Client(i, api, fixtures, generator(SEED + i + 1), log));

    for (let cycle = 1; cycle <= CYCLES; cycle += 1) {
      const fault = FAULTS[(cycle - 1) % FAULTS.length];
      const from = log.entries.length;
      const cycleStart = Date.now();
      const state = { running: true };
      const loops = clients.map((client) => client.run(state, cycle));
      await sleep(LOAD_MS * (0.5 + random() * 0.5));
      await inject(fault, { app, cluster, proxy, stats });
      stats.faults[fault] += 1;
      state.running = false;
      if (!cluster.server) await cluster.start();
      if (!app.alive) await app.start();
      await Promise.all(loops);
      await app.waitReady();
      const entries = log.entries.slice(from);
      const found = [];
      await Promise.all(
        chunks(entries, CLIENTS).map(async (part) => {
          for (const entry of part) await replay(api, entry, stats, found);
        }),
      );
      found.push(...(await effectViolations(db, entries)));
      found.push(...(await stateViolations(db, organizationId, fixtures.walletIds, STUCK_SECONDS)));
      violations.push(...found.map((v) => `cycle ${cycle} (${fault}): ${v}`));
      if (VERBOSE || found.length > 0)
        console.log(
          `cycle ${cycle} ${fault}: ${entries.length} writes, ${entries.filter((e) => e.first.status === null || e.first.status >= 500).length} unanswered, ${found.length} violations, ${Date.now() - cycleStart} ms`,
        );
      for (const v of found.slice(0, 10)) console.log(`  ${v}`);
      if (VERBOSE) console.log(`  connections: ${JSON.stringify((await db.query(CONNECTIONS)).rows)}`);
    }

    // The end: everything must settle — no hold, change, cascade or event left behind at all.
    const settleDeadline = Date.now() + STUCK_SECONDS * 1000;
    let final = await stateViolations(db, organizationId, fixtures.walletIds, 0);
    while (final.length > 0 && Date.now() < settleDeadline) {
      await sleep(1_000);
      final = await stateViolations(db, organizationId, fixtures.walletIds, 0);
    }
    violations.push(...final.map((v) => `after the last cycle: ${v}`));
    for (const v of final.slice(0, 10)) console.log(`  after the last cycle: ${v}`);
    const webhooks = await deliveries.settle(db, DELIVERY_SECONDS);
    violations.push(...webhooks.violations);
    for (const v of webhooks.violations.slice(0, 10)) console.log(`  ${v}`);

    const seconds = ((Date.now() - started) / 1000).toFixed(1);
    console.log(
      [
        `cycles run:            ${CYCLES}`,
        `faults:                ${FAULTS.map((f) => `${f} ${stats.faults[f]}`).join(', ')}${stats.cutsNotFired ? ` (${stats.cutsNotFired} cuts saw no COMMIT)` : ''}`,
        `writes sent:           ${log.sent} (acknowledged ${log.acknowledged}, refused 4xx ${log.refused}, unanswered ${log.unanswered}; 5xx answers ${JSON.stringify(log.serverErrors)})`,
        `unanswered, resolved:  ${stats.doneBeforeFault} had happened before the fault, ${stats.doneByReplay} ran on replay`,
        `replays:               ${stats.replays}`,
        `webhooks:              ${webhooks.summary}`,
        `server exits:          ${app.exits.length} unplanned${app.exits.length ? ` (${JSON.stringify(app.exits.slice(0, 3))})` : ''}`,
        `violations:            ${violations.length}`,
        `elapsed:               ${seconds} s (SEED=${SEED})`,
      ].join('\n'),
    );
    return violations.length === 0 ? 0 : 1;
  } finally {
    await app?.kill('SIGTERM').catch(() => undefined);
    await db?.end().catch(() => undefined);
    await deliveries?.close().catch(() => undefined);
    await proxy?.close().catch(() => undefined);
    await cluster.stop().catch(() => undefined);
    cluster.remove();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

async function inject(fault, { app, cluster, proxy, stats }) {
  switch (fault) {
    case 'kill':
      return app.kill('SIGKILL');
    case 'pg-stop':
      await cluster.stopImmediate();
      // The server sees its connections fail for a moment before the database returns.
      return sleep(300);
    case 'cut-before':
    case 'cut-after': {
      const fired = proxy.arm(fault === 'cut-before' ? 'beforeCommit' : 'afterCommit');
      const outcome = await Promise.race([fired, sleep(10_000).then(() => undefined)]);
      if (!outcome) {
        proxy.disarm();
        stats.cutsNotFired += 1;
      }
      return undefined;
    }
  }
  return undefined;
}

function chunks(items, count) {
  const parts = Array.from({ length: count }, () => []);
  items.forEach((item, i) => parts[i % count].push(item));
  return parts;
}

main().then(
  (code) => process.exit(code),
  (error) => {
    console.error(error);
    process.exit(2);
  },
);

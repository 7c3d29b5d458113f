// P17, events out, in one run against one server:
//   - deliveries per second to 100 local receivers (100 endpoints subscribed to `*`, each event
//     goes to all of them): a burst of events, timed from its first debit to the last delivery;
//   - commit → delivery latency p50/p99 at that load: debits paced at BENCH_WEBHOOK_LOAD (0.5) of
//     the measured capacity; "commit" is the client's 2xx (the response follows the COMMIT), matched
//     to the delivery by the event's `request.idempotency_key`; the event's `created_at` (stamped
//     before the transaction's last statement) is reported beside it;
//   - the write path (HTTP debits, 16 connections, as bench/wallets.js measures P1) with 10
//     endpoints subscribed to `*` (deliveries running meanwhile) against none (bar ≥ 0.9×);
//   - the same burst with one endpoint that accepts the connection and never answers (each attempt
//     runs into the 10 s timeout) beside 99 healthy ones: the healthy endpoints' deliveries per
//     second per endpoint against the all-healthy run (bar ≥ 0.9×).
// Receivers are real HTTP servers in this process; signatures are verified with `standardwebhooks`
// on a sample (every BENCH_WEBHOOK_VERIFY_EVERY-th request of each receiver, and its first).
// Each throughput figure is the median of BENCH_RUNS runs.
//
//   sh scripts/node24.sh bench/webhooks.js
//   BENCH_DURATION_S=10 BENCH_RUNS=1 sh scripts/node24.sh bench/webhooks.js   (≈ 3 minutes)
const { Client } = require('pg');
const { cannon, inParallel, jsonCaller } = require('./lib/http-load');
const { report } = require('./lib/report');
const { scratchDatabase } = require('./lib/scratch-database');
const { rootKeyFrom, startServer } = require('./lib/server');
const { DeadReceiver, WebhookReceiver, nowMs } = require('./lib/webhook-receivers');

const DURATION_S = Number(process.env.BENCH_DURATION_S ?? 30);
const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const WARMUP_S = Number(process.env.BENCH_WARMUP_S ?? 10);
const WALLETS = Number(process.env.BENCH_WEBHOOK_WALLETS ?? 1_000);
const RECEIVERS = 100;
const SUBSCRIBED = 10;
const BURST_EVENTS = Number(process.env.BENCH_WEBHOOK_BURST ?? 100);
const LOAD = Number(process.env.BENCH_WEBHOOK_LOAD ?? 0.5);
const VERIFY_EVERY = Number(process.env.BENCH_WEBHOOK_VERIFY_EVERY ?? 50);
const PORT = Number(process.env.BENCH_PORT ?? 3981);
const CONNECTIONS = 16;
const DRAIN_TIMEOUT_MS = Number(process.env.BENCH_WEBHOOK_DRAIN_S ?? 300) * 1000;

const log = (message) => console.log(`[webhooks ${new Date().toISOString().slice(11, 19)}] ${message}`);
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};
const percentile = (values, p) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
};

function client(base, auth) {
  const call = jsonCaller(base, auth);
  return async (method, path, body, key) => ({ body: await call(method, path, body, key), at: nowMs() });
}

/**
 * What the database's sessions are doing during a segment, sampled every 100 ms from
 * pg_stat_activity: the most frequent (wait, statement) pairs, to say where the time goes
 * (a row lock on the event sequence counter shows as Lock/transactionid or Lock/tuple).
 */
function activitySampler(databaseUrl) {
  const sql = new Client({ connectionString: databaseUrl, application_name: 'bench-activity' });
  const counts = new Map();
  let samples = 0;
  let timer;
  return {
    async start() {
      await sql.connect();
      const database = new URL(databaseUrl).pathname.slice(1);
      timer = setInterval(async () => {
        const { rows } = await sql
          .query(
            `SELECT CASE WHEN state = 'active' THEN coalesce(wait_event_type || '/' || wait_event, 'CPU') ELSE state END AS wait, left(regexp_replace(query, '\\s+', ' ', 'g'), 70) AS query
               FROM pg_stat_activity
              WHERE datname = $1 AND state IN ('active', 'idle in transaction') AND application_name <> 'bench-activity'`,
            [database],
          )
          .catch(() => ({ rows: [] }));
        samples += 1;
        for (const row of rows) {
          const key = `${row.wait} ${row.query}`;
          counts.set(key, (counts.get(key) ?? 0) + 1);
        }
      }, 100);
    },
    async stop() {
      clearInterval(timer);
      await sql.end();
      return [...counts.entries()]
        .sort((a, b) => b[1] - a[1])
        .slice(0, 6)
        .map(([key, count]) => `${(count / samples).toFixed(2)} × ${key}`);
    },
  };
}

/**
 * What the receivers saw, by segment: every debit of a segment carries an Idempotency-Key
 * `<segment>:<n>`, which its event's `request.idempotency_key` repeats.
 */
class Deliveries {
  constructor() {
    this.segments = new Map();
  }

  record({ receiver, id, at, createdAt, idempotencyKey }) {
    if (!idempotencyKey) return;
    const segment = idempotencyKey.slice(0, idempotencyKey.lastIndexOf(':'));
    let entry = this.segments.get(segment);
    if (!entry) this.segments.set(segment, (entry = { seen: new Set(), duplicates: 0, arrivals: [] }));
    const unique = `${receiver.index}/${id}`;
    if (entry.seen.has(unique)) {
      entry.duplicates += 1;
      return;
    }
    entry.seen.add(unique);
    entry.arrivals.push({ at, createdAt, key: idempotencyKey, receiver: receiver.index });
  }

  of(segment) {
    return this.segments.get(segment) ?? { seen: new Set(), duplicates: 0, arrivals: [] };
  }

  /** Waits until the segment has `count` distinct deliveries; answers the last one's arrival. */
  async until(segment, count) {
    const deadline = Date.now() + DRAIN_TIMEOUT_MS;
    while (this.of(segment).arrivals.length < count) {
      if (Date.now() > deadline)
        throw new Error(
          `${segment}: ${this.of(segment).arrivals.length} of ${count} deliveries after ${DRAIN_TIMEOUT_MS / 1000} s`,
        );
      await sleep(50);
    }
    return Math.max(...this.of(segment).arrivals.map((arrival) => arrival.at));
  }
}

async function main() {
  const started = performance.now();
  log(`duration ${DURATION_S} s × ${RUNS} run(s), ${RECEIVERS} receivers, bursts of ${BURST_EVENTS} events`);
  const database = await scratchDatabase('webhooks');
  const server = await startServer({ databaseUrl: database.url, port: PORT });
  const deliveries = new Deliveries();
  const receivers = [];
  let dead;
  const sql = new Client({ connectionString: database.url });
  try {
    await sql.connect();
    const auth = `Bearer ${rootKeyFrom(server.output())}`;
    const call = client(server.base, auth);
    for (let i = 0; i < RECEIVERS; i += 1) {
      receivers.push(
        await new WebhookReceiver({ index: i, verifyEvery: VERIFY_EVERY, onDelivery: (d) => deliveries.record(d) }).start(),
      );
    }
    dead = await new DeadReceiver({ index: RECEIVERS }).start();

    // -- Wallets, made over HTTP ----------------------------------------------------------------
    const setupStarted = performance.now();
    const walletIds = [];
    await inParallel(WALLETS, CONNECTIONS, async (i) => {
      const { body: customer } = await call('POST', '/v1/customers', { name: `webhook bench ${i}`, currency: 'USD' });
      await call('POST', `/v1/wallets/${customer.primary_wallet_id}/credit`, { amount: '100000.00' });
      walletIds.push(customer.primary_wallet_id);
    });
    log(`setup: ${WALLETS} customers with funded wallets in ${((performance.now() - setupStarted) / 1000).toFixed(1)} s`);
    const pick = () => walletIds[Math.floor(Math.random() * walletIds.length)];
    let sequence = 0;
    const debitsOf = (segment) => () => ({
      path: `/v1/wallets/${pick()}/debit`,
      body: '{"amount":"0.01"}',
      key: `${segment}:${(sequence += 1)}`,
    });
    const debit = (segment, n) => call('POST', `/v1/wallets/${pick()}/debit`, { amount: '0.01' }, `${segment}:${n}`);

    const createEndpoint = async (receiver, url = receiver.url()) => {
      const { body } = await call('POST', '/v1/webhook_endpoints', { url, enabled_events: ['*'] });
      receiver.secret = body.secret;
      return body.id;
    };
    const setStatus = (id, status) => call('PATCH', `/v1/webhook_endpoints/${id}`, { status });
    /** Drops the endpoints' pending deliveries with them, and the queue's jobs for them (no-ops once the rows are gone). */
    const dropEndpoints = async (ids) => {
      for (const id of ids) await call('DELETE', `/v1/webhook_endpoints/${id}`);
      for (let attempt = 1; ; attempt += 1) {
        try {
          await sql.query(`DELETE FROM pgboss.job WHERE name = 'webhooks.deliver' AND state < 'active'`);
          return;
        } catch (error) {
          // The workers fetch meanwhile and lock the same rows in another order.
          if (error.code !== '40P01' || attempt >= 5) throw error;
        }
      }
    };

    log(`warm-up: ${WARMUP_S} s of HTTP debits`);
    await cannon({ base: server.base, auth, connections: CONNECTIONS, durationS: WARMUP_S, build: debitsOf('warmup') });

    // -- Write path: 10 endpoints subscribed to everything against none -------------------------
    const writes = { none: [], ten: [], deliveredDuring: [] };
    for (let run = 1; run <= RUNS; run += 1) {
      const order = run % 2 === 1 ? ['none', 'ten'] : ['ten', 'none'];
      for (const variant of order) {
        const segment = `write-${variant}-${run}`;
        const ids = [];
        if (variant === 'ten') for (const receiver of receivers.slice(0, SUBSCRIBED)) ids.push(await createEndpoint(receiver));
        await sql.query('VACUUM wallets');
        const activity = activitySampler(database.url);
        await activity.start();
        const result = await cannon({
          base: server.base,
          auth,
          connections: CONNECTIONS,
          durationS: DURATION_S,
          build: debitsOf(segment),
        });
        const busy = await activity.stop();
        const delivered = deliveries.of(segment).arrivals.length;
        log(
          `write path, ${variant === 'ten' ? `${SUBSCRIBED} endpoints` : 'no endpoint'}: ${result.rps.toFixed(0)} debits/s, p99 ${result.p99} ms, ` +
            `non-2xx ${result.non2xx}, errors ${result.errors}` +
            (variant === 'ten' ? `; ${delivered} deliveries meanwhile (${(delivered / result.seconds).toFixed(0)}/s)` : ''),
        );
        log(`  sessions active on average (wait, statement):\n    ${busy.join('\n    ')}`);
        if (result.non2xx || result.errors) throw new Error(`${segment}: ${JSON.stringify(result.statusCodes)}`);
        writes[variant].push(result.rps);
        if (variant === 'ten') {
          writes.deliveredDuring.push(delivered / result.seconds);
          await dropEndpoints(ids);
          await sleep(2_000);
        }
      }
    }

    // -- Delivery to 100 receivers, and beside a dead one ---------------------------------------
    const endpointIds = [];
    for (const receiver of receivers) endpointIds.push(await createEndpoint(receiver));
    /** A burst of BURST_EVENTS debits; answers healthy deliveries per second per healthy endpoint. */
    const burst = async (segment, healthy) => {
      const from = nowMs();
      await inParallel(BURST_EVENTS, CONNECTIONS, (n) => debit(segment, n));
      const last = await deliveries.until(segment, BURST_EVENTS * healthy);
      const { arrivals, duplicates } = deliveries.of(segment);
      const perSecond = arrivals.length / ((last - from) / 1000);
      log(
        `${segment}: ${arrivals.length} deliveries to ${healthy} healthy endpoints in ${((last - from) / 1000).toFixed(1)} s: ` +
          `${perSecond.toFixed(0)}/s${duplicates ? ` (${duplicates} duplicates)` : ''}`,
      );
      return perSecond / healthy;
    };
    const healthyRates = [];
    const deadRates = [];
    let deadAttempts = 0;
    for (let run = 1; run <= RUNS; run += 1) {
      healthyRates.push(await burst(`burst-healthy-${run}`, RECEIVERS));
      // The last receiver's endpoint steps aside for one whose receiver never answers.
      await setStatus(endpointIds[RECEIVERS - 1], 'disabled');
      const deadId = await createEndpoint(dead);
      const before = dead.requests;
      deadRates.push(await burst(`burst-dead-${run}`, RECEIVERS - 1));
      deadAttempts += dead.requests - before;
      await call('DELETE', `/v1/webhook_endpoints/${deadId}`);
      for (const socket of dead.sockets) socket.destroy();
      await setStatus(endpointIds[RECEIVERS - 1], 'enabled');
      await sleep(1_000);
    }
    const capacity = median(healthyRates) * RECEIVERS;

    // -- Commit → delivery latency at a paced load ----------------------------------------------
    const rate = Math.max(0.5, (capacity * LOAD) / RECEIVERS);
    const events = Math.max(1, Math.round(rate * DURATION_S));
    log(
      `latency: ${events} events at ${rate.toFixed(1)} events/s (${(rate * RECEIVERS).toFixed(0)} deliveries/s, ${LOAD} × capacity)`,
    );
    const acknowledged = new Map();
    const pacedFrom = performance.now();
    const pending = [];
    for (let n = 0; n < events; n += 1) {
      const due = pacedFrom + (n * 1000) / rate;
      const wait = due - performance.now();
      if (wait > 0) await sleep(wait);
      pending.push(debit('latency', n).then(({ at }) => acknowledged.set(`latency:${n}`, at)));
    }
    await Promise.all(pending);
    await deliveries.until('latency', events * RECEIVERS);
    const { arrivals } = deliveries.of('latency');
    const fromAck = arrivals.map((arrival) => arrival.at - acknowledged.get(arrival.key));
    const fromCreated = arrivals.map((arrival) => arrival.at - arrival.createdAt);
    const latency = {
      p50: percentile(fromAck, 50),
      p99: percentile(fromAck, 99),
      createdP50: percentile(fromCreated, 50),
      createdP99: percentile(fromCreated, 99),
      early: fromAck.filter((ms) => ms < 0).length,
    };
    log(
      `latency from the client's 2xx: p50 ${latency.p50.toFixed(1)} ms, p99 ${latency.p99.toFixed(1)} ms ` +
        `(${latency.early} of ${fromAck.length} delivered before the 2xx reached the client); ` +
        `from created_at: p50 ${latency.createdP50.toFixed(1)} ms, p99 ${latency.createdP99.toFixed(1)} ms`,
    );

    const verified = receivers.reduce((total, receiver) => total + receiver.verified, 0);
    const verifyFailures = receivers.flatMap((receiver) => receiver.verifyFailures);
    for (const failure of verifyFailures.slice(0, 5)) log(`signature refused: ${failure}`);
    const duplicates = [...deliveries.segments.values()].reduce((total, entry) => total + entry.duplicates, 0);

    const none = median(writes.none);
    const ten = median(writes.ten);
    const healthy = median(healthyRates);
    const besideDead = median(deadRates);
    report('webhooks', [
      {
        figure: `P17 deliveries/s to ${RECEIVERS} receivers (burst of ${BURST_EVENTS} events × ${RECEIVERS} endpoints)`,
        value: capacity,
        unit: '/s',
      },
      {
        figure: `P17 commit (client 2xx) → delivery p50 at ${(rate * RECEIVERS).toFixed(0)} deliveries/s`,
        value: latency.p50,
        unit: 'ms',
      },
      {
        figure: `P17 commit (client 2xx) → delivery p99 at ${(rate * RECEIVERS).toFixed(0)} deliveries/s`,
        value: latency.p99,
        unit: 'ms',
      },
      { figure: 'P17 created_at → delivery p50 (same load)', value: latency.createdP50, unit: 'ms' },
      { figure: 'P17 created_at → delivery p99 (same load)', value: latency.createdP99, unit: 'ms' },
      {
        figure: `P17 HTTP debit with ${SUBSCRIBED} endpoints subscribed to * vs none (${median(writes.deliveredDuring).toFixed(0)} deliveries/s meanwhile)`,
        value: ten,
        unit: 'req/s',
        reference: none,
        ratio: ten / none,
        bar: '≥ 0.9×',
        pass: ten / none >= 0.9,
      },
      {
        figure: `P17 deliveries/s per healthy endpoint, 1 dead beside ${RECEIVERS - 1} vs all healthy (${deadAttempts} attempts hung)`,
        value: besideDead,
        unit: '/s',
        reference: healthy,
        ratio: besideDead / healthy,
        bar: '≥ 0.9×',
        pass: besideDead / healthy >= 0.9,
      },
      {
        figure: `P17 signatures verified with standardwebhooks (sample 1/${VERIFY_EVERY}); duplicates ${duplicates}`,
        value: verified,
        reference: verifyFailures.length,
        bar: '0 refused',
        pass: verified > 0 && verifyFailures.length === 0,
      },
    ]);
    log(`done in ${((performance.now() - started) / 1000).toFixed(0)} s`);
  } finally {
    await server.stop();
    for (const receiver of [...receivers, ...(dead ? [dead] : [])]) await receiver.close();
    await sql.end().catch(() => undefined);
    await database.drop();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});

// P16 (issue 20): the P1 debit and P3 transfer over HTTP on a Citus cluster (a coordinator and two
// workers on this machine) beside the same figures on one PostgreSQL, in the same run: what
// routing each statement to its shard costs per request (on one small machine the cluster cannot
// be faster; bar ≥ 0.5×); and the time to isolate a tenant of 100,000 ledger lines onto its own
// shard group and move that to the other worker.
//
//   sh scripts/node24.sh bench/citus.js        (≈ 4 minutes; needs ../shared/citus and root)
//
// Wallets are created through the API (customers with their primary wallets, funded by credits),
// not seeded by SQL, and nothing is ANALYZEd between set-up and load. Each throughput figure is
// the median of BENCH_RUNS runs, the two databases measured one after the other in each run.
const { execFileSync } = require('node:child_process');
const { existsSync } = require('node:fs');
const { join } = require('node:path');
const { Client } = require('pg');
const { report } = require('./lib/report');
const { scratchDatabase } = require('./lib/scratch-database');
const { rootKeyFrom, startServer } = require('./lib/server');
const { cannon, expectOk, inParallel, request } = require('./lib/http-load');

const DURATION_S = Number(process.env.BENCH_DURATION_S ?? 15);
const RUNS = Number(process.env.BENCH_RUNS ?? 2);
const WALLETS = Number(process.env.BENCH_CITUS_WALLETS ?? 1_000);
const LEDGER_LINES = Number(process.env.BENCH_CITUS_LEDGER_LINES ?? 100_000);
const CONNECTIONS = 16;
const CITUS_PORT = Number(process.env.BENCH_CITUS_PORT ?? 9740);
const SERVER_PORTS = { postgresql: 3951, citus: 3952 };
const CLUSTER_SCRIPT = join(__dirname, '..', 'scripts', 'citus-cluster.sh');
const CITUS_SH = process.env.CITUS_CLUSTER_SH ?? join(__dirname, '..', '..', 'shared', 'citus', 'cluster.sh');

const log = (message) => console.log(`[citus ${new Date().toISOString().slice(11, 19)}] ${message}`);
const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};
const pick = (list) => list[Math.floor(Math.random() * list.length)];
const round = (value, digits = 2) => Number(value.toFixed(digits));
const cluster = (...args) =>
  execFileSync('bash', [CLUSTER_SCRIPT, ...args], { stdio: 'inherit', env: { ...process.env, CITUS_CLUSTER_SH: CITUS_SH } });

/** A server on `databaseUrl` with WALLETS funded wallets made through the API. */
async function prepare(name, databaseUrl) {
  const server = await startServer({ databaseUrl, port: SERVER_PORTS[name] });
  const auth = `Bearer ${rootKeyFrom(server.output())}`;
  const started = performance.now();
  const wallets = await inParallel(WALLETS, CONNECTIONS, async (i) => {
    const customer = await expectOk(
      request(server.base, auth, 'POST', '/v1/customers', { name: `Bench customer ${i}`, currency: 'USD' }),
      'create customer',
    );
    const wallet = customer.json().primary_wallet_id;
    await expectOk(
      request(server.base, auth, 'POST', `/v1/wallets/${wallet}/credit`, { amount: '100000.00', source: 'PAYMENT' }),
      'fund wallet',
    );
    return wallet;
  });
  log(`${name}: ${WALLETS} wallets through the API in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  return { name, databaseUrl, server, auth, wallets };
}

const debit = (target) => () => ({
  path: `/v1/wallets/${pick(target.wallets)}/debit`,
  body: JSON.stringify({ amount: '0.01', source: 'INVOICE' }),
});
const transfer = (target) => () => {
  const from = pick(target.wallets);
  let to = pick(target.wallets);
  while (to === from) to = pick(target.wallets);
  return {
    path: `/v1/wallets/${from}/transfer`,
    body: JSON.stringify({ amount: { value: '0.01', currency: 'USD' }, target_wallet_id: to }),
  };
};

async function load(target, build, durationS = DURATION_S) {
  return cannon({ base: target.server.base, auth: target.auth, connections: CONNECTIONS, durationS, build: build(target) });
}

/** Isolates the bootstrap organization (LEDGER_LINES lines on one wallet) and moves its shard group to the other worker. */
async function moveTenant(target) {
  const sql = new Client({ connectionString: target.databaseUrl });
  await sql.connect();
  try {
    const [{ organization_id: org, workspace_id: ws }] = (
      await sql.query('SELECT organization_id, workspace_id FROM wallets WHERE id = $1', [target.wallets[0]])
    ).rows;
    const seeded = performance.now();
    await sql.query('BEGIN');
    await sql.query(
      `INSERT INTO wallet_transactions (organization_id, workspace_id, wallet_id, id, type, source, amount, currency, cash_amount,
         promotional_amount, ending_cash_balance, ending_promotional_balance, reason, created_by_type, created_at)
       SELECT w.organization_id, w.workspace_id, w.id, gen_random_uuid(), 'credit', 'PAYMENT', 0.01, 'USD', 0.01, 0,
              w.cash_balance + i * 0.01, 0, 'bench history', 'system', now()
         FROM wallets w, generate_series(1, $4::int) i
        WHERE w.organization_id = $1 AND w.workspace_id = $2 AND w.id = $3`,
      [org, ws, target.wallets[0], LEDGER_LINES],
    );
    await sql.query(
      `UPDATE wallets SET cash_balance = cash_balance + $4::int * 0.01, version = version + 1
        WHERE organization_id = $1 AND workspace_id = $2 AND id = $3`,
      [org, ws, target.wallets[0], LEDGER_LINES],
    );
    await sql.query('COMMIT');
    const { rows: lines } = await sql.query('SELECT count(*)::int AS n FROM wallet_transactions WHERE organization_id = $1', [
      org,
    ]);
    log(`move: ${lines[0].n} ledger lines in the tenant (seeded in ${((performance.now() - seeded) / 1000).toFixed(1)} s)`);

    let started = performance.now();
    const { rows: isolated } = await sql.query(
      `SELECT isolate_tenant_to_new_shard('organizations', $1::uuid, 'CASCADE', shard_transfer_mode => 'block_writes') AS shard`,
      [org],
    );
    const isolateMs = performance.now() - started;
    const { rows: placement } = await sql.query(
      `SELECT n.nodename, n.nodeport FROM pg_dist_placement p JOIN pg_dist_node n ON n.groupid = p.groupid WHERE p.shardid = $1`,
      [isolated[0].shard],
    );
    const { rows: other } = await sql.query(
      `SELECT nodename, nodeport FROM pg_dist_node WHERE groupid <> 0 AND noderole = 'primary' AND nodeport <> $1 ORDER BY nodeid LIMIT 1`,
      [placement[0].nodeport],
    );
    started = performance.now();
    await sql.query(`SELECT citus_move_shard_placement($1::bigint, $2, $3, $4, $5, shard_transfer_mode => 'force_logical')`, [
      isolated[0].shard,
      placement[0].nodename,
      placement[0].nodeport,
      other[0].nodename,
      other[0].nodeport,
    ]);
    const moveMs = performance.now() - started;
    const { rows: after } = await sql.query('SELECT count(*)::int AS n FROM wallet_transactions WHERE organization_id = $1', [
      org,
    ]);
    if (after[0].n !== lines[0].n) throw new Error(`move: ${lines[0].n} ledger lines before, ${after[0].n} after`);
    log(
      `move: isolated in ${Math.round(isolateMs)} ms, moved ${placement[0].nodeport} → ${other[0].nodeport} in ${Math.round(moveMs)} ms`,
    );
    return { lines: lines[0].n, isolateMs, moveMs };
  } finally {
    await sql.end();
  }
}

async function main() {
  if (!existsSync(CITUS_SH)) {
    log(`P16 not measured: ${CITUS_SH} not found (the Citus build this bench runs its cluster with)`);
    return;
  }
  const started = performance.now();
  const database = await scratchDatabase('citus_reference');
  const clusterDir = `/var/tmp/billing-bench-citus-${process.pid}`;
  const targets = [];
  try {
    cluster('start', clusterDir, String(CITUS_PORT));
    targets.push(await prepare('postgresql', database.url));
    targets.push(await prepare('citus', `postgresql://postgres@127.0.0.1:${CITUS_PORT}/billing`));
    for (const target of targets) await load(target, debit, 5); // warm-up: JIT, pools, plan caches

    const figures = { debit: { postgresql: [], citus: [] }, transfer: { postgresql: [], citus: [] } };
    for (let run = 0; run < RUNS; run += 1) {
      for (const [kind, build] of [
        ['debit', debit],
        ['transfer', transfer],
      ]) {
        for (const target of targets) {
          const result = await load(target, build);
          log(
            `run ${run + 1} ${kind} on ${target.name}: ${result.rps.toFixed(0)}/s, p99 ${result.p99} ms, non-2xx ${result.non2xx}`,
          );
          figures[kind][target.name].push(result);
        }
      }
    }
    const move = await moveTenant(targets[1]);

    const rows = [];
    for (const [kind, label] of [
      ['debit', 'P16 P1 debit/s'],
      ['transfer', 'P16 P3 transfer/s'],
    ]) {
      const citus = median(figures[kind].citus.map((r) => r.rps));
      const postgresql = median(figures[kind].postgresql.map((r) => r.rps));
      const failures = [...figures[kind].citus, ...figures[kind].postgresql].reduce((sum, r) => sum + r.non2xx + r.errors, 0);
      rows.push({
        figure: `${label}, Citus 1 + 2 vs one PostgreSQL (non-2xx ${failures})`,
        value: round(citus, 0),
        reference: round(postgresql, 0),
        ratio: round(citus / postgresql),
        bar: '≥ 0.50',
        pass: citus / postgresql >= 0.5 && failures === 0,
        score: citus / postgresql / 0.5,
      });
      rows.push({
        figure: `${label.replace('/s', '')} p99, Citus vs PostgreSQL`,
        value: median(figures[kind].citus.map((r) => r.p99)),
        reference: median(figures[kind].postgresql.map((r) => r.p99)),
        unit: 'ms',
      });
    }
    rows.push({ figure: `P16 isolate a tenant of ${move.lines} ledger lines`, value: round(move.isolateMs / 1000), unit: 's' });
    rows.push({ figure: `P16 move its shard group to the other worker`, value: round(move.moveMs / 1000), unit: 's' });
    report('citus', rows);
    log(`done in ${((performance.now() - started) / 1000).toFixed(0)} s`);
  } finally {
    for (const target of targets) await target.server.stop().catch(() => undefined);
    try {
      cluster('stop', clusterDir);
    } catch (error) {
      console.error(`cluster stop failed: ${error.message}`);
    }
    await database.drop().catch((error) => console.error(`drop failed: ${error.message}`));
  }
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);

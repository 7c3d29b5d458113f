import Big from 'big.js';
import { Writable } from 'node:stream';
import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { conservationViolations } from '../support/conservation-ledger';
import { createTenant, idem, TestTenant } from '../support/tenants';
import { createTestApp, TestApp } from '../support/test-app';
import { WalletClient } from '../support/wallet-helpers';
import { assertCitusCoordinator } from './citus-database';

interface Placement {
  shardid: string;
  nodename: string;
  nodeport: number;
  tenants_only: boolean;
}

interface Outcome {
  kind: 'debit' | 'transfer';
  wallet: string;
  target?: string;
  amount: string;
  status: number;
  body: any;
  phase: string;
}

const WALLETS = 4;
const CLIENTS = 6;
const FUNDING = '1000.00';
const AMOUNTS = ['0.01', '0.02', '0.03', '0.05', '0.07'];

/**
 * Issue 20 §4: an organization is isolated onto shards of its own (isolate_tenant_to_new_shard,
 * every colocated table with it) and that shard group is moved to the other worker
 * (citus_move_shard_placement) while the organization's debits and transfers run over HTTP from
 * several clients at once. Citus copies by logical replication (the nodes need wal_level = logical)
 * and pauses the tenant's writes for the switch-over; statements in flight then meet a placement
 * that moved (the server runs the transaction again) or wait; no client may see a 5xx or a 409,
 * and nothing may be lost: every acknowledged debit and transfer is in the
 * ledger, each balance equals the sum of its ledger lines (with the other ledger invariants), and
 * the balances moved by exactly what was acknowledged.
 */
describe('Moving a tenant to another worker under load (Citus)', () => {
  let t: TestApp;
  let tenant: TestTenant;
  let admin: Client;
  let api: WalletClient;
  const wallets: string[] = [];
  const serverErrors: string[] = [];

  beforeAll(async () => {
    await assertCitusCoordinator(process.env.DATABASE_URL!);
    // The server's error log, so a failure shows what a 5xx was.
    const logDestination = new Writable({
      write(chunk: Buffer, _encoding, done) {
        for (const line of chunk.toString('utf8').split('\n'))
          if (line.includes('"level":"error"')) serverErrors.push(line.slice(0, 2000));
        done();
      },
    });
    t = await createTestApp({ env: { LOG_LEVEL: 'error' }, logDestination });
    admin = new Client({ connectionString: t.database.url });
    await admin.connect();
    tenant = await createTenant(t);
    // A neighbour in the same shards before the isolation, so isolating really splits a shard.
    const neighbour = await createTenant(t);
    const neighbourApi = new WalletClient(t, neighbour.auth);
    const neighbourWallet = (await neighbourApi.customerWithWallet('USD', 'Neighbour')).wallet.id;
    await neighbourApi.ok(neighbourWallet, 'credit', { amount: '10.00', source: 'PAYMENT' });
    api = new WalletClient(t, tenant.auth);
    for (let i = 0; i < WALLETS; i += 1) {
      const id = (await api.customerWithWallet('USD', `Moving customer ${i}`)).wallet.id;
      await api.ok(id, 'credit', { amount: FUNDING, source: 'PAYMENT' });
      wallets.push(id);
    }
  });

  afterAll(async () => {
    await admin?.end();
    await t?.close();
  });

  const placementOf = async (organizationId: string): Promise<Placement> => {
    const { rows } = await admin.query<Placement>(
      `SELECT s.shardid::text, p.nodename, p.nodeport,
              (s.shardminvalue::int = s.shardmaxvalue::int) AS tenants_only
         FROM pg_dist_shard s JOIN pg_dist_placement pl ON pl.shardid = s.shardid
         JOIN pg_dist_node p ON p.groupid = pl.groupid
        WHERE s.shardid = get_shard_id_for_distribution_column('organizations', $1::uuid)`,
      [organizationId],
    );
    expect(rows).toHaveLength(1);
    return rows[0];
  };

  it('isolates and moves the organization while its money operations run: no error reaches a client, nothing is lost', async () => {
    const before = await placementOf(tenant.organization_id);
    // The move copies by logical replication: the tenant's writes go on during the copy and pause
    // only for the switch-over (the nodes need wal_level = logical; .ci/run sets it). The isolation
    // blocks the writes while it splits (block_writes): Citus 13.2's logical split stops on
    // `publisher did not send replica identity column` for the wallets' UPDATEs.
    const { rows: wal } = await admin.query<{ level: string }>(`SELECT current_setting('wal_level') AS level`);
    expect(`wal_level = ${wal[0].level}`).toBe('wal_level = logical');
    const splitMode = 'block_writes';
    const moveMode = 'force_logical';
    const timings: Record<string, number> = {};

    const outcomes: Outcome[] = [];
    let phase = 'before';
    let running = true;
    let counter = 0;
    const client = async (index: number) => {
      while (running) {
        counter += 1;
        const wallet = wallets[(index + counter) % WALLETS];
        const amount = AMOUNTS[counter % AMOUNTS.length];
        if (counter % 3 === 0) {
          const target = wallets[(index + counter + 1) % WALLETS];
          const response = await api.post(`/v1/wallets/${wallet}/transfer`, {
            amount: { value: amount, currency: 'USD' },
            target_wallet_id: target,
          });
          outcomes.push({ kind: 'transfer', wallet, target, amount, status: response.status, body: response.body, phase });
        } else {
          const response = await api.post(`/v1/wallets/${wallet}/debit`, {
            amount,
            source: 'INVOICE',
            reference: `move-${idem()}`,
          });
          outcomes.push({ kind: 'debit', wallet, amount, status: response.status, body: response.body, phase });
        }
      }
    };
    const load = Promise.all(Array.from({ length: CLIENTS }, (_, index) => client(index)));
    const settle = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

    let isolated: Placement;
    let moved: Placement;
    try {
      await settle(1500);
      phase = 'isolating';
      let started = Date.now();
      const { rows: isolatedRows } = await admin.query<{ shard: string }>(
        `SELECT isolate_tenant_to_new_shard('organizations', $1::uuid, 'CASCADE', shard_transfer_mode => $2::citus.shard_transfer_mode)::text AS shard`,
        [tenant.organization_id, splitMode],
      );
      timings.isolate_ms = Date.now() - started;
      isolated = await placementOf(tenant.organization_id);
      expect(isolated).toMatchObject({ shardid: isolatedRows[0].shard, tenants_only: true });
      await settle(1000);
      phase = 'moving';
      started = Date.now();
      const { rows: targets } = await admin.query<{ nodename: string; nodeport: number }>(
        `SELECT nodename, nodeport FROM pg_dist_node WHERE groupid <> 0 AND noderole = 'primary' AND nodeport <> $1 ORDER BY nodeid LIMIT 1`,
        [isolated.nodeport],
      );
      await admin.query(
        `SELECT citus_move_shard_placement($1::bigint, $2, $3, $4, $5, shard_transfer_mode => $6::citus.shard_transfer_mode)`,
        [isolated.shardid, isolated.nodename, isolated.nodeport, targets[0].nodename, targets[0].nodeport, moveMode],
      );
      timings.move_ms = Date.now() - started;
      moved = await placementOf(tenant.organization_id);
      expect(moved).toMatchObject({ shardid: isolated.shardid, nodeport: targets[0].nodeport, tenants_only: true });
      phase = 'after';
      await settle(1500);
    } finally {
      running = false;
      await load;
    }
    expect(before.tenants_only).toBe(false);
    process.stdout.write(`tenant move: ${JSON.stringify({ ...timings, requests: outcomes.length })}\n`);

    // Operations ran in every phase, during the isolation and the move included …
    const phases = new Set(outcomes.map((outcome) => outcome.phase));
    expect([...phases].sort()).toEqual(['after', 'before', 'isolating', 'moving']);
    // … and no client saw an error.
    const failed = outcomes.filter((outcome) => outcome.status !== 200);
    expect({
      failed: failed.map(({ kind, phase: when, status, body }) => ({ kind, when, status, code: body?.error?.code })),
      serverErrors,
    }).toEqual({ failed: [], serverErrors: [] });

    const db = t.app.get(DataSource);
    // Every acknowledged debit and transfer is in the ledger …
    const debitIds = outcomes.filter((outcome) => outcome.kind === 'debit').map((outcome) => outcome.body.id as string);
    const transferIds = outcomes
      .filter((outcome) => outcome.kind === 'transfer')
      .map((outcome) => outcome.body.transfer_id as string);
    const { rows: present } = await admin.query<{ debits: number; transfers: number }>(
      `SELECT (SELECT count(*) FROM wallet_transactions WHERE organization_id = $1 AND id = ANY ($2::uuid[]))::int AS debits,
              (SELECT count(*) FROM wallet_transfers WHERE organization_id = $1 AND id = ANY ($3::uuid[]))::int AS transfers`,
      [tenant.organization_id, debitIds, transferIds],
    );
    expect(present[0]).toEqual({ debits: debitIds.length, transfers: transferIds.length });
    // … the books balance (each balance = Σ its ledger lines, transfer legs paired, …) …
    expect(await conservationViolations(db, tenant.organization_id, wallets)).toEqual([]);
    // … and the balances moved by exactly what the clients were told.
    const expected = new Map(wallets.map((id) => [id, new Big(FUNDING)]));
    for (const outcome of outcomes) {
      expected.set(outcome.wallet, expected.get(outcome.wallet)!.minus(outcome.amount));
      if (outcome.target) expected.set(outcome.target, expected.get(outcome.target)!.plus(outcome.amount));
    }
    const { rows: balances } = await admin.query<{ id: string; cash: string }>(
      `SELECT id, cash_balance::text AS cash FROM wallets WHERE organization_id = $1 AND id = ANY ($2::uuid[])`,
      [tenant.organization_id, wallets],
    );
    expect(Object.fromEntries(balances.map((row) => [row.id, new Big(row.cash).toFixed(2)]))).toEqual(
      Object.fromEntries(wallets.map((id) => [id, expected.get(id)!.toFixed(2)])),
    );
  });
});

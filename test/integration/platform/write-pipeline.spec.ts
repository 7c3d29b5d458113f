import { TransactionHost } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { executeWrites, isTransientWriteFailure, SqlWrite, StaleWriteError } from '@app/shared-kernel';
import type { Pool } from 'pg';
import { DataSource } from 'typeorm';
import { createTestApp, TestApp } from '../../support/test-app';
import { traceWire } from '../../support/wire-trace';

/**
 * The write pipeline (write-pipeline.ts) on a real connection: a transaction's BEGIN travels with
 * its first statement, deferred writes with the next statement or the COMMIT, and the outcome is
 * the one the unpipelined statements had (visible to later reads, rolled back whole on an error).
 */
describe('Write pipeline', () => {
  let t: TestApp;
  let db: DataSource;
  let txHost: TransactionHost<TransactionalAdapterTypeOrm>;
  let wire: ReturnType<typeof traceWire>;

  beforeAll(async () => {
    t = await createTestApp();
    db = t.app.get(DataSource);
    txHost = t.app.get(TransactionHost);
    wire = traceWire((db.driver as unknown as { master: Pool }).master);
    await db.query('CREATE TABLE pipeline_probe (id int PRIMARY KEY, v text NOT NULL, version int NOT NULL DEFAULT 0)');
    // Read by code that runs after a COMMIT, on a session of its own the round-trip count leaves out.
    await db.query('CREATE VIEW committed_probe AS SELECT id, v FROM pipeline_probe');
  });
  afterAll(() => t.close());
  beforeEach(() => db.query('TRUNCATE pipeline_probe'));

  const insert = (id: number, v: string): SqlWrite => ({
    text: 'INSERT INTO pipeline_probe (id, v) VALUES ($1, $2)',
    values: [id, v],
  });
  const rows = async () => (await db.query('SELECT id, v FROM pipeline_probe ORDER BY id')) as Array<{ id: number; v: string }>;

  /** Runs fn in a transaction; answers its round trips as read at the wire, each the statements it carried. */
  async function roundTrips(fn: () => Promise<void>): Promise<string[][]> {
    wire.reset();
    await txHost.withTransaction(fn);
    const [session, ...others] = wire
      .sessions()
      .filter((trips) => trips.some((trip) => trip.some((text) => text.includes('pipeline_probe'))));
    expect(others).toEqual([]);
    return session.map((trip) =>
      trip.map((text) => (text.startsWith('INSERT') ? 'INSERT' : text.startsWith('WITH') ? 'WITH' : text.slice(0, 6))),
    );
  }

  it('sends BEGIN, the deferred writes and COMMIT in one round trip, and commits them', async () => {
    const trips = await roundTrips(() => executeWrites(txHost.tx, [insert(1, 'a'), insert(2, 'b')], { defer: 'after_pending' }));
    expect(trips).toEqual([['START ', 'WITH', 'COMMIT']]);
    expect(await rows()).toEqual([
      { id: 1, v: 'a' },
      { id: 2, v: 'b' },
    ]);
  });

  it('sends BEGIN with the first statement, and the writes alongside pending ones with the COMMIT', async () => {
    const trips = await roundTrips(async () => {
      await txHost.tx.query('SELECT count(*) FROM pipeline_probe WHERE id = $1', [1]);
      await executeWrites(txHost.tx, [insert(1, 'a')], { defer: 'after_pending' });
      await executeWrites(txHost.tx, [insert(2, 'b')], { defer: 'alongside_pending' });
    });
    expect(trips).toEqual([
      ['START ', 'SELECT'],
      ['WITH', 'COMMIT'],
    ]);
    expect(await rows()).toHaveLength(2);
  });

  it('runs deferred writes before any later statement of the transaction, which sees them', async () => {
    let seen: unknown;
    await txHost.withTransaction(async () => {
      await executeWrites(txHost.tx, [insert(1, 'a')], { defer: 'after_pending' });
      seen = await txHost.tx.query('SELECT v FROM pipeline_probe WHERE id = 1');
      await executeWrites(txHost.tx, [{ text: 'UPDATE pipeline_probe SET v = $1 WHERE id = 1', values: ['b'] }], {
        defer: 'after_pending',
      });
      // A second decision's writes run before the next are deferred (no two decisions in one statement).
      await executeWrites(txHost.tx, [{ text: 'UPDATE pipeline_probe SET v = v || $1 WHERE id = 1', values: ['c'] }], {
        defer: 'after_pending',
      });
    });
    expect(seen).toEqual([{ v: 'a' }]);
    expect(await rows()).toEqual([{ id: 1, v: 'bc' }]);
  });

  it('rolls the whole transaction back when a deferred write fails at the COMMIT, and the connection serves on', async () => {
    await db.query(`INSERT INTO pipeline_probe (id, v) VALUES (9, 'there')`);
    await expect(
      txHost.withTransaction(async () => {
        await txHost.tx.query(`INSERT INTO pipeline_probe (id, v) VALUES (1, 'before')`);
        await executeWrites(txHost.tx, [insert(2, 'b'), insert(9, 'duplicate')], { defer: 'after_pending' });
      }),
    ).rejects.toMatchObject({ code: '23505' });
    expect(await rows()).toEqual([{ id: 9, v: 'there' }]);
    for (let i = 0; i < 12; i += 1) {
      await txHost.withTransaction(() => executeWrites(txHost.tx, [insert(100 + i, 'x')], { defer: 'after_pending' }));
    }
    expect(await rows()).toHaveLength(13);
  });

  it('refuses a guarded write that changed no row inside the statement: StaleWriteError, nothing committed', async () => {
    await db.query(`INSERT INTO pipeline_probe (id, v, version) VALUES (1, 'a', 3)`);
    const guarded = (version: number): SqlWrite => ({
      text: 'UPDATE pipeline_probe SET v = $2, version = version + 1 WHERE id = $1 AND version = $3',
      values: [1, 'changed', version],
      expectChanged: { rows: 1, what: 'probe 1' },
    });
    // At the COMMIT, TypeORM wraps it: a transient failure either way, which a keyed POST runs again.
    const error: unknown = await txHost
      .withTransaction(() => executeWrites(txHost.tx, [guarded(2), insert(2, 'b')], { defer: 'after_pending' }))
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect((error as { driverError?: unknown }).driverError).toEqual(new StaleWriteError('probe 1'));
    expect(isTransientWriteFailure(error)).toBe(true);
    expect(await rows()).toEqual([{ id: 1, v: 'a' }]);
    await txHost.withTransaction(() => executeWrites(txHost.tx, [guarded(3), insert(2, 'b')], { defer: 'after_pending' }));
    expect(await rows()).toEqual([
      { id: 1, v: 'changed' },
      { id: 2, v: 'b' },
    ]);
  });

  it('drops deferred writes when the transaction rolls back, and runs them at once outside a transaction', async () => {
    await expect(
      txHost.withTransaction(async () => {
        await executeWrites(txHost.tx, [insert(1, 'a')], { defer: 'after_pending' });
        throw new Error('refused');
      }),
    ).rejects.toThrow('refused');
    expect(await rows()).toEqual([]);
    await executeWrites(db.manager, [insert(2, 'b')], { defer: 'after_pending' });
    expect(await rows()).toEqual([{ id: 2, v: 'b' }]);
  });

  it('hands a write’s rows on once its transaction has committed, with the writes still travelling with the COMMIT', async () => {
    const handedOn: Array<{ rows: readonly Record<string, unknown>[]; visible: Array<{ id: number; v: string }> }> = [];
    const returning = (id: number, v: string): SqlWrite => ({
      text: 'INSERT INTO pipeline_probe (id, v) VALUES ($1, $2) RETURNING id',
      values: [id, v],
      committed: (returned) => {
        // Read on another connection: what a job queued here would see.
        void db
          .query('SELECT id, v FROM committed_probe ORDER BY id')
          .then((visible: Array<{ id: number; v: string }>) => handedOn.push({ rows: returned, visible }));
      },
    });
    const trips = await roundTrips(async () => {
      await executeWrites(txHost.tx, [returning(1, 'a')], { defer: 'after_pending' });
      expect(handedOn).toEqual([]);
    });
    expect(trips).toEqual([['START ', 'WITH', 'COMMIT']]);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(handedOn).toEqual([{ rows: [{ id: 1 }], visible: [{ id: 1, v: 'a' }] }]);

    // Not deferred: run at once inside the transaction, handed on only at its COMMIT.
    await txHost.withTransaction(async () => {
      await executeWrites(txHost.tx, [returning(2, 'b')]);
      await txHost.tx.query('SELECT 1');
      expect(handedOn).toHaveLength(1);
    });
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(handedOn[1]).toEqual({
      rows: [{ id: 2 }],
      visible: [
        { id: 1, v: 'a' },
        { id: 2, v: 'b' },
      ],
    });

    // Rolled back: never handed on.
    await expect(
      txHost.withTransaction(async () => {
        await executeWrites(txHost.tx, [returning(3, 'c')]);
        throw new Error('refused');
      }),
    ).rejects.toThrow('refused');
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(handedOn).toHaveLength(2);
  });
});

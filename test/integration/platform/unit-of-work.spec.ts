import { TransactionHost } from '@nestjs-cls/transactional';
import { CommandBus } from '@nestjs/cqrs';
import { Client } from 'pg';
import { notifyChannelSql } from 'pg-boss/dist/plans.js';
import {
  FAIR_ROUND_SIZE,
  FETCH_BATCH_SIZE,
  IDEMPOTENCY_RETENTION_MS,
  IdempotencyRetention,
  JobQueue,
  ManualClock,
  Outbox,
  OutboxRelay,
} from '@app/shared-kernel';
import { DataSource } from 'typeorm';
import {
  PROBE_JOB,
  PROBE_ORGANIZATION_ID,
  PROBE_SHARED_JOB,
  PROBE_SLOW_JOB,
  PROBE_TABLE_SQL,
  ProbeFollowUps,
  ProbeModule,
  ProbeNoteWritten,
  ProbeNoteWrittenSubscriber,
  WriteProbeNoteCommand,
} from '../../support/probe.module';
import { createTestApp, TestApp } from '../../support/test-app';

describe('Unit of work, outbox and job queue on PostgreSQL', () => {
  const clock = new ManualClock(new Date('2026-11-22T12:00:00.000Z'));
  let t: TestApp;
  let db: DataSource;
  let subscriber: ProbeNoteWrittenSubscriber;

  beforeAll(async () => {
    t = await createTestApp({ imports: [ProbeModule], clock });
    db = t.app.get(DataSource);
    await db.query(PROBE_TABLE_SQL);
    subscriber = t.app.get(ProbeNoteWrittenSubscriber);
  });
  afterAll(() => t.close());

  async function counts(): Promise<{ notes: number; events: number }> {
    const [row] = await db.query(
      `SELECT (SELECT count(*) FROM probe_notes)::int AS notes, (SELECT count(*) FROM outbox_events)::int AS events`,
    );
    return row;
  }

  it('commits the row and its outbox event together, then relays the event once', async () => {
    const before = await counts();
    const { id } = await t.app.get(CommandBus).execute(new WriteProbeNoteCommand('kept', false));
    expect(await counts()).toEqual({ notes: before.notes + 1, events: before.events + 1 });

    await t.app.get(OutboxRelay).wake();
    expect(subscriber.received).toContainEqual(expect.objectContaining({ noteId: id, text: 'kept' }));
    const [event] = await db.query(
      `SELECT dispatched_at, attempts, event_type FROM outbox_events WHERE payload->>'noteId' = $1`,
      [id],
    );
    expect(event).toEqual({ dispatched_at: expect.any(Date), attempts: 1, event_type: 'probe.note_written' });

    await t.app.get(OutboxRelay).wake();
    expect(subscriber.received.filter((received) => received.noteId === id)).toHaveLength(1);
  });

  it('rolls back every write of a failing command handler, outbox rows included', async () => {
    const before = await counts();
    await expect(t.app.get(CommandBus).execute(new WriteProbeNoteCommand('lost', true))).rejects.toMatchObject({
      code: 'PROBE_REFUSED',
    });
    expect(await counts()).toEqual(before);
  });

  it('rolls back over HTTP too: a refused request leaves no row and no event', async () => {
    const before = await counts();
    await t.http.post('/v1/probes').send({ text: 'lost over http', fail_after_write: true }).expect(422);
    expect(await counts()).toEqual(before);
  });

  it('retries a failing subscriber later and delivers exactly once when it recovers', async () => {
    subscriber.failuresToSimulate = 1;
    const { id } = await t.app.get(CommandBus).execute(new WriteProbeNoteCommand('retried', false));
    await t.app.get(OutboxRelay).wake();
    const [failed] = await db.query(
      `SELECT dispatched_at, attempts, last_error, next_attempt_at FROM outbox_events WHERE payload->>'noteId' = $1`,
      [id],
    );
    expect(failed).toEqual(
      expect.objectContaining({ dispatched_at: null, attempts: 1, last_error: 'simulated subscriber failure' }),
    );
    expect(failed.next_attempt_at.getTime()).toBeGreaterThan(clock.now().getTime());
    expect(subscriber.received.some((received) => received.noteId === id)).toBe(false);

    clock.advance(60_000);
    await t.app.get(OutboxRelay).wake();
    expect(subscriber.received.filter((received) => received.noteId === id)).toHaveLength(1);
    const [delivered] = await db.query(`SELECT dispatched_at, attempts FROM outbox_events WHERE payload->>'noteId' = $1`, [id]);
    expect(delivered).toEqual({ dispatched_at: expect.any(Date), attempts: 2 });
  });

  it('refuses to write an outbox event outside a transaction', async () => {
    await expect(t.app.get(Outbox).add(new ProbeNoteWritten('x', 'y'), PROBE_ORGANIZATION_ID)).rejects.toThrow(
      /inside a transaction/,
    );
  });

  it('purges idempotency records older than 24 hours, by the registered job', async () => {
    const insert = (key: string, createdAt: Date) =>
      db.query(
        `INSERT INTO idempotency_records (organization_id, workspace_id, principal_id, method, route, idempotency_key,
           fingerprint, response_status, response_body, created_at)
         VALUES (gen_random_uuid(), gen_random_uuid(), gen_random_uuid(), 'POST', '/v1/probes', $1, 'f', 201, '{}', $2)`,
        [key, createdAt],
      );
    const now = clock.now().getTime();
    await insert('old', new Date(now - IDEMPOTENCY_RETENTION_MS - 1000));
    await insert('fresh', new Date(now - IDEMPOTENCY_RETENTION_MS + 60_000));

    await t.app.get(JobQueue).runNow('idempotency.purge-expired');
    const keys = (await db.query('SELECT idempotency_key FROM idempotency_records')).map(
      (row: { idempotency_key: string }) => row.idempotency_key,
    );
    expect(keys).toEqual(['fresh']);
    expect(await t.app.get(IdempotencyRetention).purgeExpired()).toBe(0);
  });

  it('schedules the idempotency purge on the shared queue', async () => {
    const schedule = await db.query(`SELECT name, cron FROM pgboss.schedule WHERE name = 'idempotency.purge-expired'`);
    expect(schedule).toEqual([{ name: 'idempotency.purge-expired', cron: '17 * * * *' }]);
  });

  it('runs a job sent inside a committed transaction and drops the job of a rolled-back one', async () => {
    const followUps = t.app.get(ProbeFollowUps);
    const jobsFor = async (state?: string) =>
      (await db.query(`SELECT state, data->>'noteId' AS note_id FROM pgboss.job WHERE name = $1`, [PROBE_JOB])).filter(
        (job: { state: string }) => !state || job.state === state,
      );
    const before = (await jobsFor()).length;
    await expect(t.app.get(CommandBus).execute(new WriteProbeNoteCommand('no job', true))).rejects.toThrow();
    expect(await jobsFor()).toHaveLength(before);

    const { id } = await t.app.get(CommandBus).execute(new WriteProbeNoteCommand('with job', false));
    const deadline = Date.now() + 10_000;
    while (!followUps.done.includes(id) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(followUps.done).toContain(id);
  });

  it("wakes the queue's workers at commit for a job due now by the app's clock, and not for a later one", async () => {
    const [{ channel }] = await db.query(`SELECT ${notifyChannelSql('pgboss')} AS channel`);
    const listener = new Client({ connectionString: t.database.url });
    const wakes: string[] = [];
    await listener.connect();
    listener.on('notification', (message) => void wakes.push(message.payload ?? ''));
    await listener.query(`LISTEN "${channel}"`);
    const settle = async () => {
      await listener.query('SELECT 1');
      await new Promise((resolve) => setTimeout(resolve, 200));
    };
    const earlier = clock.now();
    // An app clock ahead of the database's: due now by the app, future by the transaction's now().
    clock.set(new Date(Date.now() + 3_600_000));
    const tenant = { organizationId: PROBE_ORGANIZATION_ID, workspaceMode: 'live' as const };
    const keys = [`wake-due-${Date.now()}`, `wake-later-${Date.now()}`];
    try {
      await t.app.get(TransactionHost).withTransaction(async () => {
        await t.app.get(JobQueue).send(PROBE_JOB, tenant, { noteId: 'due' }, { startAfter: clock.now(), singletonKey: keys[0] });
        await settle();
        expect(wakes).toEqual([]);
      });
      await settle();
      expect(wakes).toEqual([PROBE_JOB]);

      await t.app
        .get(JobQueue)
        .send(
          PROBE_JOB,
          tenant,
          { noteId: 'later' },
          { startAfter: new Date(clock.now().getTime() + 60_000), singletonKey: keys[1] },
        );
      await settle();
      expect(wakes).toEqual([PROBE_JOB]);
    } finally {
      clock.set(earlier);
      await listener.end();
      await db.query(`DELETE FROM pgboss.job WHERE name = $1 AND singleton_key = ANY($2)`, [PROBE_JOB, keys]);
    }
  });

  it("starts another organization's job after the one running, not after a batch fetched before it was sent", async () => {
    const followUps = t.app.get(ProbeFollowUps);
    const queue = t.app.get(JobQueue);
    const large = { organizationId: '019ab000-0000-7000-8000-0000000000a1', workspaceMode: 'live' as const };
    const small = { organizationId: '019ab000-0000-7000-8000-0000000000b2', workspaceMode: 'live' as const };
    const jobs = Array.from({ length: 3 * FAIR_ROUND_SIZE }, (_, index) => ({ data: { label: `large-${index}` } }));
    await queue.sendFair(PROBE_SLOW_JOB, large, jobs);
    const deadline = Date.now() + 20_000;
    const startedBy = async (count: number) => {
      while (followUps.slowStarted.length < count && Date.now() < deadline)
        await new Promise((resolve) => setTimeout(resolve, 2));
    };
    // Past the fan-out's first round (which shares round 0 with the small job), into its later rounds.
    await startedBy(FAIR_ROUND_SIZE + 1);
    const startedBeforeSend = followUps.slowStarted.length;
    await queue.send(PROBE_SLOW_JOB, small, { label: 'small' });
    while (!followUps.slowStarted.includes('small') && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 5));

    // Behind at most the rest of the slot's fetched batch, and one more batch if a fetch raced the
    // send; a batch of ten fetched before it put up to ten of the fan-out's later rounds ahead of it.
    expect(followUps.slowStarted.indexOf('small') - startedBeforeSend).toBeLessThanOrEqual(FETCH_BATCH_SIZE);
    await db.query(`DELETE FROM pgboss.job WHERE name = $1`, [PROBE_SLOW_JOB]);
  });

  it("runs one organization's fan-out at most perOrganizationConcurrency at a time, leaving slots to another's", async () => {
    const followUps = t.app.get(ProbeFollowUps);
    const queue = t.app.get(JobQueue);
    const large = { organizationId: '019ab000-0000-7000-8000-0000000000c3', workspaceMode: 'live' as const };
    const small = { organizationId: '019ab000-0000-7000-8000-0000000000d4', workspaceMode: 'live' as const };
    await queue.sendFair(
      PROBE_SHARED_JOB,
      large,
      Array.from({ length: 8 }, (_, index) => ({ data: { label: `large-${index}` } })),
    );
    await queue.send(PROBE_SHARED_JOB, small, { label: 'small' });
    const deadline = Date.now() + 20_000;
    while (followUps.sharedOverlaps.length < 9 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));

    expect(followUps.sharedOverlaps).toHaveLength(9);
    // Three slots, yet never two of the large organization's jobs at once; the small one, sent last
    // and as old as none of them, ran in a slot they left free instead of after them.
    for (const { label, alongside } of followUps.sharedOverlaps.filter(({ label }) => label.startsWith('large-')))
      expect({ label, alongside: alongside.filter((other) => other.startsWith('large-')) }).toEqual({ label, alongside: [] });
    expect(followUps.sharedOverlaps.findIndex(({ label }) => label === 'small')).toBeLessThanOrEqual(2);
  });
});

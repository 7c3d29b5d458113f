import { EXPIRE_PROMOTIONAL_LOTS_JOB, RELEASE_EXPIRED_HOLD_JOB } from '@app/billing-wallet';
import { FIRE_PRODUCT_RELEASE_JOB } from '@app/catalog';
import { EXPIRE_VERIFICATION_JOB } from '@app/identity';
import { Clock, IDEMPOTENCY_RETENTION_MS, IdempotencyRetention, JobQueue } from '@app/shared-kernel';
import { randomUUID } from 'node:crypto';
import { Response } from 'supertest';
import { DataSource } from 'typeorm';
import { SandboxVerificationProvider } from '../../libs/identity/src/infrastructure/sandbox-verification-provider';
import { DatabaseClock } from '../../libs/shared-kernel/src/persistence/database-clock';
import { CatalogClient, scheduleDraft } from '../support/catalog-helpers';
import { databaseNow, skewProcessClock, untilDatabasePasses } from '../support/skewed-clock';
import { createKey, createTenant, idem, TestTenant } from '../support/tenants';
import { createTestApp, TestApp } from '../support/test-app';
import { WalletClient } from '../support/wallet-helpers';

/**
 * R9, time: the application keeps one clock, the database's. Each phase skews this process's
 * wall clock (`Date.now()`, `new Date()`) by −S, 0 and +S while PostgreSQL keeps the real time,
 * starts the real app on its real DatabaseClock, and drives the scenarios whose outcome depends
 * on time: a hold and a promotional lot expiring (wallet, hold), a key expiring, its rotation
 * grace, a session ending (key), a release scheduled SHORT ahead (change), a verification
 * expiring and a provider's signed webhook (verification), idempotency replay and retention, the
 * rate-limit window. Every deadline is set from the database's clock, as a client would see
 * it, SHORT (3 s) ahead; every scenario is armed, then all are checked once the database has
 * passed their deadlines (one wait per phase, no long sleeps; expiry jobs are also run directly).
 * Each phase must give the outcomes listed once in EXPECTED, and the three phases' outcomes must
 * be identical.
 *
 * S defaults to 10 minutes and 20.5 seconds (SKEW_MS overrides it): more than the 5-minute
 * webhook window, and off the minute so the host's minute boundaries differ from the database's.
 */
const SKEW_MS = Number(process.env.SKEW_MS ?? 620_500);
const SKEWS = [-SKEW_MS, 0, SKEW_MS];
const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
/** How far ahead the short deadlines are, by the database's clock (SHORT_MS overrides it). */
const SHORT = Number(process.env.SHORT_MS ?? 3000);
/** How late a queued job may fire: its queue polls every 0.5–2 s, on a loaded 2-core machine. */
const JOB_LATENESS_MS = 6000;

const later = (at: Date, ms: number) => new Date(at.getTime() + ms);

interface Armed {
  /** By the database's clock. */
  deadline: Date;
  after: () => Promise<void>;
}

/** What a response says, without what differs from run to run (ids, times). */
function verdict(response: Response): { status: number; code?: string; param?: string } {
  const error = response.body?.error;
  return error
    ? { status: response.status, code: error.code, ...(error.param ? { param: error.param } : {}) }
    : { status: response.status };
}

const EXPECTED = {
  clock: { databaseClock: true, appAgreesWithDatabase: true },
  wallet: {
    pastExpiry: { status: 400, code: 'VALIDATION_ERROR', param: 'expires_at' },
    promotionalBefore: { status: 200 },
    promotionalAfter: { status: 422, code: 'INSUFFICIENT_FUNDS', param: 'amount' },
    promotionalBalanceAfterSweep: '0.00',
  },
  hold: {
    placed: ['pending', 'pending'],
    afterEarlyReleaseJob: ['pending', 'pending'],
    captureAfterExpiry: { status: 409, code: 'HOLD_NOT_PENDING' },
    shortAfter: { status: 'released', release_reason: 'expired', releasedAtOrAfterExpiry: true, releasedWithinLateness: true },
    longAfterReleaseJob: 'pending',
    longCapture: { status: 200 },
  },
  key: {
    pastExpiry: { status: 400, code: 'VALIDATION_ERROR', param: 'expires_at' },
    before: { expiring: 200, rotatedOld: 200, successor: 200, graceOld: 200 },
    graceEndsAtExpiry: true,
    graceIs24Hours: true,
    after: {
      expiring: { status: 401, code: 'API_KEY_EXPIRED' },
      rotatedOld: { status: 401, code: 'API_KEY_REVOKED' },
      successor: { status: 401, code: 'API_KEY_EXPIRED' },
      graceOld: { status: 200 },
    },
  },
  session: {
    lifetimeIs12Hours: true,
    before: { status: 200 },
    after: { status: 401, code: 'UNAUTHENTICATED' },
  },
  change: {
    pastSchedule: { status: 409, code: 'PUBLISH_SCHEDULE_IN_PAST', param: 'scheduled_for' },
    scheduled: 'pending',
    jobStartsAtScheduledFor: true,
    liveBefore: { version: 1, unit_price: '4' },
    firedOnTime: true,
    applied: { status: 'applied', appliedAtScheduledFor: true },
    liveAfter: { version: 2, unit_price: '5' },
  },
  verification: {
    pastExpiry: { status: 400, code: 'VALIDATION_ERROR', param: 'expires_at' },
    opened: 'verified',
    afterEarlyExpiryJob: 'verified',
    after: { status: 'expired', completedAtOrAfterExpiry: true },
    webhookSignedNow: { status: 200 },
    webhookSignedTooEarly: { status: 401, code: 'INVALID_SIGNATURE' },
  },
  idempotency: {
    first: 201,
    replay: { status: 201, sameBody: true, oneCustomer: true },
    retention: { youngerThan24HoursKept: true, olderThan24HoursPurged: true },
  },
  rateLimit: { windowEndsOnDatabaseMinute: true },
};
type Outcomes = { [K in keyof typeof EXPECTED]: unknown };

const observed = new Map<number, Partial<Outcomes>>();

describe.each(SKEWS.map((skew) => [skew]))(
  'R9: the app with its process clock skewed %i ms from the database',
  (skew: number) => {
    let restore: () => void;
    let t: TestApp;
    let db: DataSource;
    let tenant: TestTenant;
    let wallets: WalletClient;
    let catalog: CatalogClient;
    const outcomes: Partial<Outcomes> = {};

    beforeAll(async () => {
      const startedAt = performance.now();
      restore = skewProcessClock(skew);
      console.log(`clock-skew: process clock ${skew >= 0 ? '+' : ''}${skew} ms from the database (SKEW_MS=${SKEW_MS})`);
      // The rate limiter is on (and generous) to read its window from the headers.
      t = await createTestApp({ env: { RATE_LIMIT_PER_MINUTE: '100000' } });
      db = t.app.get(DataSource);
      tenant = await createTenant(t, { withOwner: true });
      wallets = new WalletClient(t, tenant.auth);
      catalog = new CatalogClient(t, tenant.auth);
      observed.set(skew, outcomes);
      console.log(`clock-skew ${skew}: app and tenant ready in ${Math.round(performance.now() - startedAt)} ms`);
    });
    afterAll(async () => {
      const closing = performance.now();
      await t?.close();
      restore();
      console.log(`clock-skew ${skew}: closed in ${Math.round(performance.now() - closing)} ms`);
    });

    function record<K extends keyof Outcomes>(name: K, value: Outcomes[K]): void {
      outcomes[name] = value;
      expect(value).toEqual(EXPECTED[name]);
    }

    function runJob(name: string, data: object): Promise<void> {
      return t.app.get(JobQueue).runNow(name, data);
    }

    /**
     * A scenario with a deadline: `arm` does what must hold before it (by the database's clock) and
     * returns the deadline and what must hold after it. Every scenario is armed first, then checked
     * once the database has passed its deadline, so a phase waits about SHORT once, not per scenario.
     */
    const scenarios: Array<{ title: string; arm: () => Promise<Armed> }> = [];
    const armed = new Map<string, Armed>();
    function timed(title: string, arm: () => Promise<Armed>): void {
      scenarios.push({ title, arm });
    }

    it('runs on the database clock, not on the skewed process clock', async () => {
      const before = await databaseNow(db);
      const app = t.app.get(Clock).now();
      const after = await databaseNow(db);
      const host = Date.now();
      expect(Math.abs(host - after.getTime() - skew)).toBeLessThan(SECOND);
      console.log(
        `clock-skew ${skew}: app clock − database clock: ${app.getTime() - before.getTime()}…${app.getTime() - after.getTime()} ms (host ${host - after.getTime()} ms)`,
      );
      // Within a round trip's half either way, plus the time between the readings.
      record('clock', {
        databaseClock: t.app.get(Clock) instanceof DatabaseClock,
        appAgreesWithDatabase: app.getTime() >= before.getTime() - 50 && app.getTime() <= after.getTime() + 50,
      });
    });

    timed(
      'wallet: a promotional lot is spendable until its expires_at by the database, then not, and the sweep takes it',
      async () => {
        const { wallet } = await wallets.customerWithWallet('EUR', 'Promo GmbH');
        const now = await databaseNow(db);
        const pastExpiry = verdict(
          await wallets.money(wallet.id, 'credit', { amount: '5', source: 'PROMOTION', expires_at: later(now, -5 * SECOND) }),
        );
        const expiresAt = later(await databaseNow(db), SHORT);
        expect(
          (await wallets.money(wallet.id, 'credit', { amount: '5', source: 'PROMOTION', expires_at: expiresAt })).status,
        ).toBe(200);
        const promotionalBefore = verdict(await wallets.money(wallet.id, 'debit', { amount: '1' }));
        return {
          deadline: expiresAt,
          after: async () => {
            const promotionalAfter = verdict(await wallets.money(wallet.id, 'debit', { amount: '1' }));
            await runJob(EXPIRE_PROMOTIONAL_LOTS_JOB, {});
            record('wallet', {
              pastExpiry,
              promotionalBefore,
              promotionalAfter,
              promotionalBalanceAfterSweep: (await wallets.wallet(wallet.id)).promotional_balance,
            });
          },
        };
      },
    );

    timed(
      'hold: 2 min ahead stays pending; SHORT ahead is refused a capture and released once the database passes it',
      async () => {
        const { wallet } = await wallets.customerWithWallet('EUR', 'Hold GmbH');
        await wallets.ok(wallet.id, 'credit', { amount: '10.00' });
        const path = `/v1/wallets/${wallet.id}/holds`;
        const now = await databaseNow(db);
        const long = await wallets.post(path, { amount: '1.00', expires_at: later(now, 2 * MINUTE) });
        const short = await wallets.post(path, { amount: '1.00', expires_at: later(now, SHORT) });
        const key = { organizationId: tenant.organization_id, workspaceId: tenant.liveWorkspaceId, walletId: wallet.id };
        const read = async (id: string) => (await wallets.get(`${path}/${id}`)).body;
        await runJob(RELEASE_EXPIRED_HOLD_JOB, { ...key, holdId: long.body.id });
        await runJob(RELEASE_EXPIRED_HOLD_JOB, { ...key, holdId: short.body.id });
        const afterEarlyReleaseJob = [(await read(long.body.id)).status, (await read(short.body.id)).status];
        const expiresAt = new Date(short.body.expires_at);
        return {
          deadline: expiresAt,
          after: async () => {
            // Refused whether or not its queued release job has run yet (P8).
            const captureAfterExpiry = verdict(await wallets.post(`${path}/${short.body.id}/capture`, {}));
            await runJob(RELEASE_EXPIRED_HOLD_JOB, { ...key, holdId: short.body.id });
            const released = await read(short.body.id);
            const releasedAt = Date.parse(released.released_at);
            await runJob(RELEASE_EXPIRED_HOLD_JOB, { ...key, holdId: long.body.id });
            record('hold', {
              placed: [long.body.status, short.body.status],
              afterEarlyReleaseJob,
              captureAfterExpiry,
              shortAfter: {
                status: released.status,
                release_reason: released.release_reason,
                releasedAtOrAfterExpiry: releasedAt >= expiresAt.getTime(),
                releasedWithinLateness: releasedAt - expiresAt.getTime() <= JOB_LATENESS_MS,
              },
              longAfterReleaseJob: (await read(long.body.id)).status,
              longCapture: verdict(await wallets.post(`${path}/${long.body.id}/capture`, { amount: '1.00' })),
            });
          },
        };
      },
    );

    timed('key: works until its expires_at, a rotation’s grace ends with it (or after 24 h), then 401', async () => {
      const usable = (secret: string) => t.http.get('/v1/permissions').set('Authorization', `Bearer ${secret}`);
      const now = await databaseNow(db);
      const pastExpiry = verdict(
        await t.http
          .post('/v1/api_keys')
          .set('Authorization', tenant.auth)
          .set('Idempotency-Key', idem())
          .send({ name: 'past', scopes: ['costs:read'], expires_at: later(now, -5 * SECOND) }),
      );
      const expiresAt = later(await databaseNow(db), SHORT);
      const expiring = await createKey(t, tenant.auth, { name: 'expiring', scopes: ['costs:read'], expires_at: expiresAt });
      const rotating = await createKey(t, tenant.auth, { name: 'rotating', scopes: ['costs:read'], expires_at: expiresAt });
      const graced = await createKey(t, tenant.auth, { name: 'graced', scopes: ['costs:read'] });
      const rotate = (id: string) =>
        t.http.post(`/v1/api_keys/${id}/rotate`).set('Authorization', tenant.auth).set('Idempotency-Key', idem()).expect(201);
      const successor = (await rotate(rotating.id)).body;
      const rotatedAt = await databaseNow(db);
      const gracedSuccessor = (await rotate(graced.id)).body;
      const gracedRevokesAt = Date.parse(gracedSuccessor.rotated_from.revokes_at);
      const before = {
        expiring: (await usable(expiring.secret)).status,
        rotatedOld: (await usable(rotating.secret)).status,
        successor: (await usable(successor.secret)).status,
        graceOld: (await usable(graced.secret)).status,
      };
      return {
        deadline: expiresAt,
        after: async () => {
          record('key', {
            pastExpiry,
            before,
            graceEndsAtExpiry: successor.rotated_from.revokes_at === expiresAt.toISOString(),
            graceIs24Hours: Math.abs(gracedRevokesAt - rotatedAt.getTime() - 24 * HOUR) < 2 * SECOND,
            after: {
              expiring: verdict(await usable(expiring.secret)),
              rotatedOld: verdict(await usable(rotating.secret)),
              successor: verdict(await usable(successor.secret)),
              graceOld: verdict(await usable(graced.secret)),
            },
          });
        },
      };
    });

    timed('session: lives 12 hours from sign-in by the database’s clock, and ends at its expires_at', async () => {
      const signedIn = await t.http
        .post('/v1/sessions')
        .send({ organization_id: tenant.organization_id, email: tenant.owner!.email, password: tenant.owner!.password })
        .expect(201);
      const now = await databaseNow(db);
      const lifetimeIs12Hours = Math.abs(Date.parse(signedIn.body.expires_at) - now.getTime() - 12 * HOUR) < 2 * SECOND;
      // A session near its end: brought forward before its first use (so no instance caches the old end).
      const [{ expires_at: endsAt }] = await db.query(
        `WITH moved AS (UPDATE sessions SET expires_at = now() + make_interval(secs => $2) WHERE id = $1 RETURNING expires_at)
       SELECT expires_at FROM moved`,
        [signedIn.body.id, SHORT / 1000],
      );
      const use = () => t.http.get('/v1/permissions').set('Authorization', `Bearer ${signedIn.body.token}`);
      const before = verdict(await use());
      return {
        deadline: endsAt,
        after: async () => {
          record('session', { lifetimeIs12Hours, before, after: verdict(await use()) });
        },
      };
    });

    timed(
      'change: a release scheduled SHORT ahead waits, then its queued job fires it on time (not at once, not S late)',
      async () => {
        const product = await catalog.product({ name: 'Timed', price_expression: '4' });
        await catalog.publish(product.id);
        expect((await catalog.patch(`/v1/products/${product.id}`, { price_expression: '5' })).status).toBe(200);
        const other = await catalog.product({ name: 'Late', price_expression: '4' });
        const pastSchedule = verdict(
          await catalog.post('/v1/changes', {
            operation: 'catalog.publish_version',
            subject_kind: 'product',
            subject_id: other.id,
            staged_version_id: other.draft_version.id,
            scheduled_for: later(await databaseNow(db), -5 * SECOND).toISOString(),
          }),
        );
        const scheduledFor = later(await databaseNow(db), SHORT);
        const change = await scheduleDraft(catalog, product.id, scheduledFor);
        const job = async () =>
          (
            await db.query(
              `SELECT state, start_after, completed_on FROM pgboss.job WHERE name = $1 AND data->>'changeId' = $2 ORDER BY created_on DESC LIMIT 1`,
              [FIRE_PRODUCT_RELEASE_JOB, change.id],
            )
          )[0] as { state: string; start_after: Date; completed_on: Date | null } | undefined;
        const queued = await job();
        const live = async () => {
          const read = (await catalog.get(`/v1/products/${product.id}`)).body;
          return { version: read.version, unit_price: read.unit_price };
        };
        const liveBefore = await live();
        return {
          deadline: scheduledFor,
          after: async () => {
            // Left to the queue's own workers: wait for the job to complete, reading nothing that catches up.
            let fired = await job();
            while (fired?.state !== 'completed' && (await databaseNow(db)).getTime() < scheduledFor.getTime() + JOB_LATENESS_MS) {
              await new Promise((resolve) => setTimeout(resolve, 100));
              fired = await job();
            }
            const applied = (await catalog.get(`/v1/changes/${change.id}`)).body;
            const firedAfter = fired?.completed_on ? fired.completed_on.getTime() - scheduledFor.getTime() : null;
            console.log(`clock-skew ${skew}: scheduled release fired ${firedAfter} ms after scheduled_for`);
            record('change', {
              pastSchedule,
              scheduled: change.status,
              jobStartsAtScheduledFor: queued?.start_after.getTime() === scheduledFor.getTime(),
              liveBefore,
              firedOnTime:
                fired?.state === 'completed' && firedAfter !== null && firedAfter >= 0 && firedAfter <= JOB_LATENESS_MS,
              applied: { status: applied.status, appliedAtScheduledFor: applied.applied_at === scheduledFor.toISOString() },
              liveAfter: await live(),
            });
          },
        };
      },
    );

    timed(
      'verification: verified until its expires_at, then expired; a webhook signed now by the database’s clock is accepted',
      async () => {
        const customer = await t.http
          .post('/v1/customers')
          .set('Authorization', tenant.sandboxAuth)
          .set('Idempotency-Key', idem())
          .send({ name: 'Verified GmbH', currency: 'EUR' })
          .expect(201);
        const open = async (body: object) =>
          t.http
            .post('/v1/test_helpers/customer_verifications')
            .set('Authorization', tenant.sandboxAuth)
            .set('Idempotency-Key', idem())
            .send({ customer_id: customer.body.id, verification_type: 'kyc', ...body });
        const pastExpiry = verdict(await open({ status: 'verified', expires_at: later(await databaseNow(db), -5 * SECOND) }));
        const expiresAt = later(await databaseNow(db), SHORT);
        const opened = await open({ status: 'verified', expires_at: expiresAt });
        expect(opened.status).toBe(201);
        const get = async () =>
          (await t.http.get(`/v1/customer_verifications/${opened.body.id}`).set('Authorization', tenant.sandboxAuth)).body;
        const expiryJob = () =>
          runJob(EXPIRE_VERIFICATION_JOB, {
            organizationId: tenant.organization_id,
            workspaceId: tenant.sandboxWorkspaceId,
            verificationId: opened.body.id,
          });
        await expiryJob();
        const afterEarlyExpiryJob = (await get()).status;

        // The provider signs with its own (true) clock: the database's, not this host's.
        const sandbox = t.app.get(SandboxVerificationProvider);
        const pending = (await open({ status: 'pending' })).body;
        const deliver = (body: string, signature: string) =>
          t.http
            .post('/v1/webhooks/verifications/sandbox')
            .set('Content-Type', 'application/json')
            .set('Billing-Signature', signature)
            .send(body);
        const event = (occurredAt: Date) =>
          sandbox.signedEvent({
            id: `evt_${randomUUID()}`,
            reference: pending.provider_reference,
            status: 'approved',
            occurredAt,
          }).body;
        const signedAt = await databaseNow(db);
        const seconds = Math.floor(signedAt.getTime() / 1000);
        const early = event(signedAt);
        const webhookSignedTooEarly = verdict(await deliver(early, sandbox.sign(early, seconds - 301)));
        const fresh = event(signedAt);
        const webhookSignedNow = verdict(await deliver(fresh, sandbox.sign(fresh, seconds)));

        return {
          deadline: expiresAt,
          after: async () => {
            await expiryJob();
            const expired = await get();
            record('verification', {
              pastExpiry,
              opened: opened.body.status,
              afterEarlyExpiryJob,
              after: {
                status: expired.status,
                completedAtOrAfterExpiry: Date.parse(expired.completed_at) >= expiresAt.getTime(),
              },
              webhookSignedNow,
              webhookSignedTooEarly,
            });
          },
        };
      },
    );

    it('idempotency: a key replays; retention keeps 24 hours by the database’s clock', async () => {
      const key = idem();
      const post = () =>
        t.http
          .post('/v1/customers')
          .set('Authorization', tenant.auth)
          .set('Idempotency-Key', key)
          .send({ name: `Idem ${key}`, currency: 'EUR' });
      const first = await post();
      const replay = await post();
      const [{ count }] = await db.query(`SELECT count(*)::int AS count FROM customers WHERE name = $1`, [`Idem ${key}`]);
      // Two more records, aged by the database's clock: 24 h less 2 min, and 24 h and 2 min.
      const young = idem();
      const old = idem();
      for (const k of [young, old]) {
        await t.http
          .post('/v1/customers')
          .set('Authorization', tenant.auth)
          .set('Idempotency-Key', k)
          .send({ name: 'Aged', currency: 'EUR' })
          .expect(201);
      }
      await db.query(
        `UPDATE idempotency_records SET created_at = now() - make_interval(secs => $2)
        WHERE organization_id = $1 AND idempotency_key = $3`,
        [tenant.organization_id, (IDEMPOTENCY_RETENTION_MS - 2 * MINUTE) / 1000, young],
      );
      await db.query(
        `UPDATE idempotency_records SET created_at = now() - make_interval(secs => $2)
        WHERE organization_id = $1 AND idempotency_key = $3`,
        [tenant.organization_id, (IDEMPOTENCY_RETENTION_MS + 2 * MINUTE) / 1000, old],
      );
      await t.app.get(IdempotencyRetention).purgeExpired();
      const kept = async (k: string) =>
        (
          await db.query(`SELECT 1 FROM idempotency_records WHERE organization_id = $1 AND idempotency_key = $2`, [
            tenant.organization_id,
            k,
          ])
        ).length === 1;
      record('idempotency', {
        first: first.status,
        replay: { status: replay.status, sameBody: replay.text === first.text, oneCustomer: count === 1 },
        retention: { youngerThan24HoursKept: await kept(young), olderThan24HoursPurged: !(await kept(old)) },
      });
    });

    it('rate limit: the window ends on the database’s minute, whatever the host’s clock says', async () => {
      let windowEndsOnDatabaseMinute = false;
      // A minute boundary may fall between the two readings: then read again.
      for (let attempt = 0; attempt < 3; attempt += 1) {
        const before = await databaseNow(db);
        const response = await t.http.get('/v1/permissions').set('Authorization', tenant.auth).expect(200);
        const after = await databaseNow(db);
        if (Math.floor(before.getTime() / MINUTE) !== Math.floor(after.getTime() / MINUTE)) continue;
        const reset = Number(/;t=(\d+)/.exec(response.headers.ratelimit)?.[1]);
        const left = (at: Date) => Math.ceil((MINUTE - (at.getTime() % MINUTE)) / SECOND);
        windowEndsOnDatabaseMinute = reset >= left(after) && reset <= left(before);
        if (!windowEndsOnDatabaseMinute)
          console.log(`clock-skew ${skew}: RateLimit t=${reset}, database minute ends in ${left(after)}–${left(before)} s`);
        break;
      }
      record('rateLimit', { windowEndsOnDatabaseMinute });
    });

    for (const { title, arm } of scenarios) {
      it(`${title} — before the deadline`, async () => {
        const scenario = await arm();
        const now = await databaseNow(db);
        // Armed too slowly for the deadline to mean anything (a very loaded machine): raise SHORT_MS.
        expect({ armedBeforeDeadline: now < scenario.deadline, now, deadline: scenario.deadline }).toEqual(
          expect.objectContaining({ armedBeforeDeadline: true }),
        );
        armed.set(title, scenario);
      });
    }
    for (const { title } of scenarios) {
      it(`${title} — after the deadline`, async () => {
        const scenario = armed.get(title);
        if (!scenario) throw new Error('not armed: see the failure before the deadline');
        await untilDatabasePasses(db, scenario.deadline);
        await scenario.after();
      });
    }
  },
);

describe('R9: identical outcomes', () => {
  it(`gives the same outcome in every scenario at −${SKEW_MS} ms, 0 and +${SKEW_MS} ms`, () => {
    const reference = observed.get(0);
    expect(Object.keys(reference ?? {}).sort()).toEqual(Object.keys(EXPECTED).sort());
    for (const skew of SKEWS) expect({ skew, outcomes: observed.get(skew) }).toEqual({ skew, outcomes: reference });
  });
});

import { randomUUID } from 'node:crypto';
import { MigrationRunner, PlanReleases } from '@app/catalog';
import { ManualClock } from '@app/shared-kernel';
import { DataSource } from 'typeorm';
import { expectError } from '../support/auth-helpers';
import { CatalogClient } from '../support/catalog-helpers';
import { SubscriptionClient } from '../support/subscription-helpers';
import { createTenant } from '../support/tenants';
import { createTestApp, TestApp } from '../support/test-app';

jest.setTimeout(90_000);

const DAY = 86_400_000;
const NO_SKIPS = { ALREADY_ON_TARGET: 0, NOT_ACTIVE: 0, CADENCE_MISMATCH: 0, PIN_NOT_IN_TARGET: 0, SUPERSEDED: 0 };

describe('Plan migrations: migrate (PREVIEW, IMMEDIATE, SCHEDULED), outcomes, automatic moves at go-live', () => {
  let t: TestApp;
  let clock: ManualClock;
  let api: SubscriptionClient;
  let stranger: SubscriptionClient;
  let db: DataSource;
  let seat: any;
  let extra: any;
  let customer: string;

  beforeAll(async () => {
    clock = new ManualClock(new Date());
    t = await createTestApp({ clock });
    db = t.app.get(DataSource);
    const tenant = await createTenant(t);
    api = new SubscriptionClient(new CatalogClient(t, tenant.auth), tenant);
    const other = await createTenant(t);
    stranger = new SubscriptionClient(new CatalogClient(t, other.auth), other);
    await api.orgCost('seat', { amount: '10' });
    seat = await api.liveProduct('seat * 2');
    extra = await api.liveProduct('seat * 3');
    customer = await api.customer();
  });
  afterAll(() => t.close());

  async function versionChanges(subscriptionId: string): Promise<any[]> {
    return db.query(
      `SELECT from_version_id, to_version_id, migration_id, proration_strategy, effective_at FROM subscription_version_changes
        WHERE subscription_id = $1 ORDER BY created_at, effective_at`,
      [subscriptionId],
    );
  }

  async function events(subscriptionId: string): Promise<any[]> {
    const rows: { payload: any }[] = await db.query(
      `SELECT payload FROM outbox_events WHERE event_type = 'subscription.version_changed' AND payload->>'subscriptionId' = $1 ORDER BY occurred_at, id`,
      [subscriptionId],
    );
    return rows.map((row) => row.payload);
  }

  describe('migrate', () => {
    let planId: string;
    let v1: string;
    let v2: string;

    beforeAll(async () => {
      // v1 has both products, v2 only seat (so a pin on extra cannot follow to v2).
      planId = await api.plan([seat.id, extra.id]);
      await api.publishPlan(planId);
      v1 = (await api.get(`/v1/plans/${planId}`)).body.live_version.id;
      expect((await api.delete(`/v1/plans/${planId}/products/${extra.id}`)).status).toBe(204);
      await api.publishPlan(planId);
      v2 = (await api.get(`/v1/plans/${planId}`)).body.live_version.id;
    });

    it('refuses bad mode, target, strategy and scheduled_at with 400, and a target that never went live with 409', async () => {
      const migrate = (body: object) => api.post(`/v1/plans/${planId}/migrate`, body);
      const future = new Date(clock.now().getTime() + DAY).toISOString();
      for (const body of [
        { mode: 'SOMETIMES', target_version: 2 },
        { target_version: 2 },
        { mode: 'IMMEDIATE' },
        { mode: 'IMMEDIATE', target_version: 0 },
        { mode: 'IMMEDIATE', target_version: -1 },
        { mode: 'IMMEDIATE', target_version: 1.5 },
        { mode: 'IMMEDIATE', target_version: '2' },
        { mode: 'IMMEDIATE', target_version: 2, proration_strategy: 'prorate' },
        { mode: 'IMMEDIATE', target_version: 2, scheduled_at: future },
        { mode: 'PREVIEW', target_version: 2, scheduled_at: future },
        { mode: 'SCHEDULED', target_version: 2 },
        { mode: 'SCHEDULED', target_version: 2, scheduled_at: new Date(clock.now().getTime() - 1000).toISOString() },
        { mode: 'SCHEDULED', target_version: 2, scheduled_at: 'tomorrow' },
        { mode: 'IMMEDIATE', target_version: 2, colour: 'blue' },
      ]) {
        expectError(await migrate(body), 400, 'VALIDATION_ERROR');
      }
      const unpublished = await migrate({ mode: 'IMMEDIATE', target_version: 9 });
      expectError(unpublished, 409, 'INVALID_TARGET_VERSION');
      expect(unpublished.body.error).toMatchObject({ param: 'target_version', details: { target_version: 9 } });
      // A working draft has a number, but it never went live.
      await api.patch(`/v1/plans/${planId}/products/${seat.id}`, { included_quantity: '300' });
      expectError(await migrate({ mode: 'preview', target_version: 3 }), 409, 'INVALID_TARGET_VERSION');
      await api.delete(`/v1/plans/${planId}/draft`);
      expectError(
        await api.post(`/v1/plans/${randomUUID()}/migrate`, { mode: 'PREVIEW', target_version: 1 }),
        404,
        'PLAN_NOT_FOUND',
      );
      const [{ count }] = await db.query(
        `SELECT count(*)::int AS count FROM plan_migrations WHERE plan_id = $1 AND trigger = 'manual'`,
        [planId],
      );
      expect(count).toBe(0);
    });

    it('PREVIEW (any case) counts the scope and the skips it predicts, and writes nothing', async () => {
      const pinned = await api.subscribe({ customer_id: customer, plan_id: planId, plan_version: 1 });
      const pinsExtra = await api.subscribe({
        customer_id: customer,
        plan_id: planId,
        plan_version: 1,
        product_pins: [{ product_id: extra.id, product_version_id: extra.live_version.id }],
      });
      const onTarget = await api.subscribe({ customer_id: customer, plan_id: planId, plan_version: 2 });
      const canceled = await api.subscribe({ customer_id: customer, plan_id: planId, plan_version: 1 });
      await api.post(`/v1/subscriptions/${canceled.id}/cancel`);
      const before = await db.query(`SELECT count(*)::int AS n FROM plan_migrations`);
      const preview = await api.post(`/v1/plans/${planId}/migrate`, { mode: 'preview', target_version: 2 });
      expect(preview.status).toBe(200);
      expect(preview.body).toEqual({
        mode: 'PREVIEW',
        target_version: 2,
        affected_subscriptions: 2,
        scheduled_at: null,
        migration_id: null,
        skipped_by_reason: { ...NO_SKIPS, PIN_NOT_IN_TARGET: 1 },
      });
      expect(await db.query(`SELECT count(*)::int AS n FROM plan_migrations`)).toEqual(before);
      // Back to version 1: the one on version 2 is in scope, the two on version 1 are not.
      const back = await api.post(`/v1/plans/${planId}/migrate`, { mode: 'Preview', target_version: 1 });
      expect(back.body).toMatchObject({ affected_subscriptions: 1, skipped_by_reason: NO_SKIPS });
      for (const id of [pinned.id, pinsExtra.id, onTarget.id, canceled.id]) await api.post(`/v1/subscriptions/${id}/cancel`);
    });

    it('IMMEDIATE writes one pending outcome per subscription in scope; the job moves or skips each (PIN_NOT_IN_TARGET), records the move and tells billing', async () => {
      const moving = await api.subscribe({ customer_id: customer, plan_id: planId, plan_version: 1 });
      const pinsExtra = await api.subscribe({
        customer_id: customer,
        plan_id: planId,
        plan_version: 1,
        product_pins: [{ product_id: extra.id, product_version_id: extra.live_version.id }],
      });
      const onTarget = await api.subscribe({ customer_id: customer, plan_id: planId, plan_version: 2 });
      const response = await api.post(`/v1/plans/${planId}/migrate`, {
        mode: 'immediate',
        target_version: 2,
        proration_strategy: 'always_invoice',
      });
      expect(response.status).toBe(200);
      expect(response.body).toEqual({
        mode: 'IMMEDIATE',
        target_version: 2,
        affected_subscriptions: 2,
        scheduled_at: null,
        migration_id: expect.any(String),
        skipped_by_reason: { ...NO_SKIPS, PIN_NOT_IN_TARGET: 1 },
      });
      const migrationId = response.body.migration_id;
      await api.runMigration(migrationId);
      const migration = await api.migration(migrationId);
      expect(migration).toMatchObject({
        object: 'migration',
        plan_id: planId,
        trigger: 'manual',
        mode: 'IMMEDIATE',
        target_version: { id: v2, version: 2 },
        proration_strategy: 'always_invoice',
        status: 'completed',
        counts: { total: 2, pending: 0, moved: 1, skipped: 1, failed: 0 },
        skipped_by_reason: { ...NO_SKIPS, PIN_NOT_IN_TARGET: 1 },
        created_by: { type: 'api_key', id: api.tenant.api_key.id },
      });
      const outcomes = await api.outcomes(migrationId);
      expect(outcomes).toHaveLength(2);
      expect(outcomes.find((row) => row.subscription_id === moving.id)).toEqual({
        object: 'migration_outcome',
        migration_id: migrationId,
        subscription_id: moving.id,
        status: 'moved',
        reason: null,
        from_version: { id: v1, version: 1 },
        to_version: { id: v2, version: 2 },
        effective_at: migration.created_at,
        proration_strategy: 'always_invoice',
        processed_at: expect.any(String),
      });
      expect(outcomes.find((row) => row.subscription_id === pinsExtra.id)).toMatchObject({
        status: 'skipped',
        reason: 'PIN_NOT_IN_TARGET',
      });
      expect((await api.outcomes(migrationId, 'status=skipped')).map((row) => row.subscription_id)).toEqual([pinsExtra.id]);
      expectError(await api.get(`/v1/migrations/${migrationId}/outcomes?status=lost`), 400, 'VALIDATION_ERROR');
      expect((await api.subscription(moving.id)).plan_version).toEqual({ id: v2, version: 2 });
      expect((await api.subscription(pinsExtra.id)).plan_version).toEqual({ id: v1, version: 1 });
      expect((await api.subscription(onTarget.id)).plan_version.version).toBe(2);
      expect(await versionChanges(moving.id)).toEqual([
        {
          from_version_id: v1,
          to_version_id: v2,
          migration_id: migrationId,
          proration_strategy: 'always_invoice',
          effective_at: new Date(migration.created_at),
        },
      ]);
      expect(await events(moving.id)).toEqual([
        expect.objectContaining({
          subscriptionId: moving.id,
          customerId: customer,
          planId,
          migrationId,
          fromVersion: 1,
          toVersion: 2,
          prorationStrategy: 'always_invoice',
        }),
      ]);
      // Running the job again moves nobody twice.
      await api.runMigration(migrationId);
      expect(await versionChanges(moving.id)).toHaveLength(1);
      // Cancel is for scheduled migrations only.
      const cancel = await api.post(`/v1/migrations/${migrationId}/cancel`);
      expectError(cancel, 409, 'INVALID_STATUS_TRANSITION');
      expect(cancel.body.error.details).toEqual({ from: 'completed', to: 'canceled', allowed: [] });
      // Explicit migration moves pinned subscribers too, and rolls back: version 2 → 1.
      const rollback = await api.post(`/v1/plans/${planId}/migrate`, { mode: 'IMMEDIATE', target_version: 1 });
      expect(rollback.body).toMatchObject({ affected_subscriptions: 2, skipped_by_reason: NO_SKIPS });
      await api.runMigration(rollback.body.migration_id);
      expect((await api.subscription(moving.id)).plan_version.version).toBe(1);
      expect((await api.subscription(onTarget.id)).plan_version.version).toBe(1);
      for (const id of [moving.id, pinsExtra.id, onTarget.id]) await api.post(`/v1/subscriptions/${id}/cancel`);
    });

    it('skips CADENCE_MISMATCH: a subscription cannot follow to a version billed on another cadence', async () => {
      const yearly = await api.plan([seat.id], { name: 'Cadence' });
      await api.publishPlan(yearly);
      const monthly = await api.subscribe({ customer_id: customer, plan_id: yearly });
      expect((await api.patch(`/v1/plans/${yearly}`, { price_cadence_unit: 'year' })).status).toBe(200);
      await api.publishPlan(yearly);
      const response = await api.post(`/v1/plans/${yearly}/migrate`, {
        mode: 'IMMEDIATE',
        target_version: 2,
        proration_strategy: 'none',
      });
      expect(response.body).toMatchObject({ affected_subscriptions: 1, skipped_by_reason: { ...NO_SKIPS, CADENCE_MISMATCH: 1 } });
      await api.runMigration(response.body.migration_id);
      expect(await api.outcomes(response.body.migration_id)).toEqual([
        expect.objectContaining({
          subscription_id: monthly.id,
          status: 'skipped',
          reason: 'CADENCE_MISMATCH',
          proration_strategy: 'none',
        }),
      ]);
      expect((await api.subscription(monthly.id)).plan_version.version).toBe(1);
    });

    it('SCHEDULED stores the migration; at scheduled_at the job builds outcomes from the subscriptions ACTIVE then and moves them', async () => {
      const early = await api.subscribe({ customer_id: customer, plan_id: planId, plan_version: 1 });
      const leaving = await api.subscribe({ customer_id: customer, plan_id: planId, plan_version: 1 });
      const scheduledAt = new Date(clock.now().getTime() + 2 * 3_600_000);
      const response = await api.post(`/v1/plans/${planId}/migrate`, {
        mode: 'scheduled',
        target_version: 2,
        scheduled_at: scheduledAt.toISOString(),
      });
      expect(response.status).toBe(200);
      expect(response.body).toMatchObject({
        mode: 'SCHEDULED',
        target_version: 2,
        affected_subscriptions: 2,
        scheduled_at: scheduledAt.toISOString(),
      });
      const migrationId = response.body.migration_id;
      expect(await api.migration(migrationId)).toMatchObject({
        status: 'scheduled',
        mode: 'SCHEDULED',
        counts: { total: 0 },
        started_at: null,
      });
      // Not due yet: the job does nothing.
      await t.app
        .get(MigrationRunner)
        .startScheduled({ organizationId: api.tenant.organization_id, workspaceId: api.tenant.liveWorkspaceId, migrationId });
      expect((await api.migration(migrationId)).status).toBe('scheduled');
      const late = await api.subscribe({ customer_id: customer, plan_id: planId, plan_version: 1 });
      await api.post(`/v1/subscriptions/${leaving.id}/cancel`);
      clock.set(new Date(scheduledAt.getTime() + 1000));
      await t.app
        .get(MigrationRunner)
        .startScheduled({ organizationId: api.tenant.organization_id, workspaceId: api.tenant.liveWorkspaceId, migrationId });
      await api.runMigration(migrationId);
      const migration = await api.migration(migrationId);
      expect(migration).toMatchObject({
        status: 'completed',
        counts: { total: 2, moved: 2, pending: 0 },
        started_at: expect.any(String),
      });
      const outcomes = await api.outcomes(migrationId);
      expect(outcomes.map((row) => row.subscription_id).sort()).toEqual([early.id, late.id].sort());
      expect(outcomes.every((row) => row.effective_at === scheduledAt.toISOString())).toBe(true);
      expect((await api.subscription(late.id)).plan_version.version).toBe(2);
      expect((await api.subscription(leaving.id)).plan_version.version).toBe(1);
      expectError(await api.post(`/v1/migrations/${migrationId}/cancel`), 409, 'INVALID_STATUS_TRANSITION');
      for (const id of [early.id, late.id]) await api.post(`/v1/subscriptions/${id}/cancel`);
    });

    it('cancels a scheduled migration before it starts; once due it has started and cancel is refused', async () => {
      const subscription = await api.subscribe({ customer_id: customer, plan_id: planId, plan_version: 1 });
      const at = (hours: number) => new Date(clock.now().getTime() + hours * 3_600_000).toISOString();
      const first = await api.post(`/v1/plans/${planId}/migrate`, { mode: 'SCHEDULED', target_version: 2, scheduled_at: at(1) });
      const canceled = await api.post(`/v1/migrations/${first.body.migration_id}/cancel`);
      expect(canceled.status).toBe(200);
      expect(canceled.body).toMatchObject({ status: 'canceled', canceled_at: expect.any(String), counts: { total: 0 } });
      const again = await api.post(`/v1/migrations/${first.body.migration_id}/cancel`);
      expectError(again, 409, 'INVALID_STATUS_TRANSITION');
      expect(again.body.error.details).toEqual({ from: 'canceled', to: 'canceled', allowed: [] });
      const second = await api.post(`/v1/plans/${planId}/migrate`, { mode: 'SCHEDULED', target_version: 2, scheduled_at: at(1) });
      clock.advance(2 * 3_600_000);
      // Due, though no job ran yet: cancel starts it for good, then refuses.
      expectError(await api.post(`/v1/migrations/${second.body.migration_id}/cancel`), 409, 'INVALID_STATUS_TRANSITION');
      expect((await api.migration(second.body.migration_id)).status).not.toBe('scheduled');
      await api.runMigration(second.body.migration_id);
      expect((await api.subscription(subscription.id)).plan_version.version).toBe(2);
      // The canceled one never built outcomes.
      await t.app.get(MigrationRunner).startScheduled({
        organizationId: api.tenant.organization_id,
        workspaceId: api.tenant.liveWorkspaceId,
        migrationId: first.body.migration_id,
      });
      expect(await api.migration(first.body.migration_id)).toMatchObject({ status: 'canceled', counts: { total: 0 } });
      await api.post(`/v1/subscriptions/${subscription.id}/cancel`);
    });

    it('fires a due release first (catch-up): a version whose scheduled_for passed is a valid target even before its job ran', async () => {
      const released = await api.plan([seat.id], { name: 'Catch-up' });
      await api.publishPlan(released);
      const subscription = await api.subscribe({ customer_id: customer, plan_id: released });
      await api.republishPlan(released, seat.id, '400', {
        scheduled_for: new Date(clock.now().getTime() + 3_600_000).toISOString(),
      });
      expectError(
        await api.post(`/v1/plans/${released}/migrate`, { mode: 'PREVIEW', target_version: 2 }),
        409,
        'INVALID_TARGET_VERSION',
      );
      clock.advance(2 * 3_600_000);
      const preview = await api.post(`/v1/plans/${released}/migrate`, { mode: 'PREVIEW', target_version: 2 });
      expect(preview.status).toBe(200);
      expect(preview.body).toMatchObject({ target_version: 2, affected_subscriptions: 1, migration_id: null });
      expect((await api.get(`/v1/plans/${released}`)).body.live_version.version).toBe(2);
      await api.post(`/v1/subscriptions/${subscription.id}/cancel`);
    });

    it('keeps tenants apart: another organization’s plan and migrations are 404, and nothing of theirs moves', async () => {
      const subscription = await api.subscribe({ customer_id: customer, plan_id: planId, plan_version: 1 });
      const preview = await api.post(`/v1/plans/${planId}/migrate`, {
        mode: 'SCHEDULED',
        target_version: 2,
        scheduled_at: new Date(clock.now().getTime() + DAY).toISOString(),
      });
      const migrationId = preview.body.migration_id;
      expectError(
        await stranger.post(`/v1/plans/${planId}/migrate`, { mode: 'IMMEDIATE', target_version: 2 }),
        404,
        'PLAN_NOT_FOUND',
      );
      expectError(await stranger.get(`/v1/migrations/${migrationId}`), 404, 'MIGRATION_NOT_FOUND');
      expectError(await stranger.get(`/v1/migrations/${migrationId}/outcomes`), 404, 'MIGRATION_NOT_FOUND');
      expectError(await stranger.post(`/v1/migrations/${migrationId}/cancel`), 404, 'MIGRATION_NOT_FOUND');
      const sandbox = await t.http.get(`/v1/migrations/${migrationId}`).set('Authorization', api.tenant.sandboxAuth);
      expectError(sandbox, 404, 'MIGRATION_NOT_FOUND');
      expectError(await api.get(`/v1/migrations/${randomUUID()}`), 404, 'MIGRATION_NOT_FOUND');
      expectError(await api.get('/v1/migrations/not-an-id'), 404, 'MIGRATION_NOT_FOUND');
      expect((await api.migration(migrationId)).status).toBe('scheduled');
      expect((await api.subscription(subscription.id)).plan_version.version).toBe(1);
      await api.post(`/v1/migrations/${migrationId}/cancel`);
      await api.post(`/v1/subscriptions/${subscription.id}/cancel`);
    });
  });

  describe('automatic moves when a version goes live', () => {
    it('moves ACTIVE subscriptions that track latest: immediate at the go-live, next_period at period end; pinned ones stay', async () => {
      const planId = await api.plan([seat.id], { name: 'Tracked' });
      await api.publishPlan(planId);
      const v1 = (await api.get(`/v1/plans/${planId}`)).body.live_version;
      const start = clock.now();
      const base = { customer_id: customer, plan_id: planId, current_period_start: start.toISOString() };
      const immediate = await api.subscribe({ ...base, plan_track_mode: 'latest', version_change_strategy: 'immediate' });
      const nextPeriod = await api.subscribe({ ...base, plan_track_mode: 'latest' });
      const pinned = await api.subscribe(base);
      const productPinned = await api.subscribe({
        ...base,
        plan_track_mode: 'latest',
        product_pins: [{ product_id: seat.id, product_version_id: seat.live_version.id }],
      });
      const canceled = await api.subscribe({ ...base, plan_track_mode: 'latest' });
      await api.post(`/v1/subscriptions/${canceled.id}/cancel`);
      clock.advance(DAY);

      const change2 = await api.republishPlan(planId, seat.id, '200');
      const v2 = change2.result;
      const [first] = await api.publishMigrations(planId);
      const migration = await api.migration(first);
      // The queue's worker may already be moving the immediate one.
      expect(migration).toMatchObject({ trigger: 'publish', mode: 'IMMEDIATE', target_version: v2, counts: { total: 2 } });
      await api.runMigration(first);
      expect((await api.subscription(immediate.id)).plan_version).toEqual(v2);
      expect((await api.subscription(nextPeriod.id)).plan_version).toEqual({ id: v1.id, version: 1 });
      const goLive = (await api.get(`/v1/plans/${planId}/versions/2`)).body.effective_from;
      const outcomes = await api.outcomes(first);
      expect(outcomes.find((row) => row.subscription_id === immediate.id)).toMatchObject({
        status: 'moved',
        effective_at: goLive,
      });
      expect(outcomes.find((row) => row.subscription_id === nextPeriod.id)).toMatchObject({
        status: 'pending',
        effective_at: nextPeriod.current_period_end,
      });
      expect(await events(immediate.id)).toEqual([
        expect.objectContaining({ fromVersion: 1, toVersion: 2, effectiveAt: goLive, migrationId: first }),
      ]);

      // A newer go-live before the period ends closes the older pending outcome as SUPERSEDED.
      clock.advance(DAY);
      const v3 = (await api.republishPlan(planId, seat.id, '300')).result;
      const [, second] = await api.publishMigrations(planId);
      expect(await api.migration(first)).toMatchObject({
        status: 'completed',
        counts: { total: 2, moved: 1, skipped: 1 },
        skipped_by_reason: { SUPERSEDED: 1 },
      });
      expect((await api.outcomes(first, 'status=skipped'))[0]).toMatchObject({
        subscription_id: nextPeriod.id,
        reason: 'SUPERSEDED',
      });
      await api.runMigration(second);
      expect((await api.subscription(immediate.id)).plan_version).toEqual(v3);
      expect((await api.subscription(nextPeriod.id)).plan_version.version).toBe(1);

      // At the period end the job moves the next_period subscriber, straight to the newest version.
      clock.set(new Date(new Date(nextPeriod.current_period_end).getTime() + 1000));
      await api.runMigration(second);
      expect((await api.subscription(nextPeriod.id)).plan_version).toEqual(v3);
      expect(await api.migration(second)).toMatchObject({ status: 'completed', counts: { total: 2, moved: 2 } });
      expect(await versionChanges(nextPeriod.id)).toEqual([
        expect.objectContaining({
          from_version_id: v1.id,
          to_version_id: v3.id,
          migration_id: second,
          effective_at: new Date(nextPeriod.current_period_end),
        }),
      ]);
      for (const id of [pinned.id, productPinned.id, canceled.id])
        expect((await api.subscription(id)).plan_version.version).toBe(1);
      expect(await versionChanges(pinned.id)).toEqual([]);
    });

    it('moves at a fired release’s scheduled_for; outcomes left pending end NOT_ACTIVE or ALREADY_ON_TARGET when the subscription changed', async () => {
      const planId = await api.plan([seat.id], { name: 'Released' });
      await api.publishPlan(planId);
      const start = clock.now().toISOString();
      const base = { customer_id: customer, plan_id: planId, plan_track_mode: 'latest', current_period_start: start };
      const immediate = await api.subscribe({ ...base, version_change_strategy: 'immediate' });
      const willCancel = await api.subscribe(base);
      const willMove = await api.subscribe(base);
      const scheduledFor = new Date(clock.now().getTime() + 3_600_000);
      await api.republishPlan(planId, seat.id, '250', { scheduled_for: scheduledFor.toISOString() });
      expect(await api.publishMigrations(planId)).toEqual([]);
      clock.advance(2 * 3_600_000);
      // The release job fires it (late): the go-live instant is scheduled_for, and so is the immediate move.
      await t.app.get(PlanReleases).fire({
        organizationId: api.tenant.organization_id,
        workspaceId: api.tenant.liveWorkspaceId,
        planId,
        changeId: (await db.query(`SELECT id FROM changes WHERE subject_id = $1 AND status = 'pending'`, [planId]))[0].id,
      });
      const [migrationId] = await api.publishMigrations(planId);
      await api.runMigration(migrationId);
      const outcomes = await api.outcomes(migrationId);
      expect(outcomes.find((row) => row.subscription_id === immediate.id)).toMatchObject({
        status: 'moved',
        effective_at: scheduledFor.toISOString(),
      });
      expect((await api.subscription(immediate.id)).plan_version.version).toBe(2);
      // Before the period ends: one subscriber cancels, another is moved by hand.
      await api.post(`/v1/subscriptions/${willCancel.id}/cancel`);
      const manual = await api.post(`/v1/plans/${planId}/migrate`, { mode: 'IMMEDIATE', target_version: 2 });
      await api.runMigration(manual.body.migration_id);
      clock.set(new Date(new Date(willMove.current_period_end).getTime() + 1));
      await api.runMigration(migrationId);
      const settled = await api.outcomes(migrationId);
      expect(settled.find((row) => row.subscription_id === willCancel.id)).toMatchObject({
        status: 'skipped',
        reason: 'NOT_ACTIVE',
      });
      expect(settled.find((row) => row.subscription_id === willMove.id)).toMatchObject({
        status: 'skipped',
        reason: 'ALREADY_ON_TARGET',
      });
      expect(await api.migration(migrationId)).toMatchObject({
        status: 'completed',
        counts: { total: 3, moved: 1, skipped: 2, pending: 0, failed: 0 },
        skipped_by_reason: { ...NO_SKIPS, NOT_ACTIVE: 1, ALREADY_ON_TARGET: 1 },
      });
    });
  });
});

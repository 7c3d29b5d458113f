import { randomUUID } from 'node:crypto';
import { Response } from 'supertest';
import { DataSource } from 'typeorm';
import { expectError } from '../support/auth-helpers';
import { CatalogClient, drainCascades, scheduleDraft } from '../support/catalog-helpers';
import { addMembership, createPlan, insertSubscriptions, livePlan, planChangeBody, publishPlan } from '../support/plan-helpers';
import { createTenant, TestTenant } from '../support/tenants';
import { createTestApp, TestApp } from '../support/test-app';

jest.setTimeout(60_000);

/** The response, once its status is asserted (the body is printed when it is not the expected one). */
async function must(pending: Promise<Response>, status: number): Promise<Response> {
  const response = await pending;
  if (response.status !== status) console.log(response.status, JSON.stringify(response.body));
  expect(response.status).toBe(status);
  return response;
}

/** Rows a dry run must leave as they were. */
async function digest(t: TestApp, tenant: TestTenant): Promise<string> {
  const [row] = await t.app.get(DataSource).query(
    `SELECT md5(concat_ws('|',
        (SELECT string_agg(to_jsonb(p)::text, ',' ORDER BY id) FROM plans p WHERE organization_id = $1),
        (SELECT string_agg(to_jsonb(v)::text, ',' ORDER BY id) FROM plan_versions v WHERE organization_id = $1),
        (SELECT string_agg(to_jsonb(m)::text, ',' ORDER BY plan_version_id, product_id) FROM plan_version_products m WHERE organization_id = $1),
        (SELECT string_agg(to_jsonb(c)::text, ',' ORDER BY id) FROM changes c WHERE organization_id = $1),
        (SELECT count(*) FROM audit_events WHERE organization_id = $1),
        (SELECT count(*) FROM pgboss.job))) AS digest`,
    [tenant.organization_id],
  );
  return row.digest;
}

describe('Plan insight: publish impact, publish check, supersede forecast, referrers, usage', () => {
  let t: TestApp;
  let tenant: TestTenant;
  let api: CatalogClient;
  let stranger: CatalogClient;

  beforeAll(async () => {
    t = await createTestApp();
    tenant = await createTenant(t);
    api = new CatalogClient(t, tenant.auth);
    stranger = new CatalogClient(t, (await createTenant(t)).auth);
  });
  afterAll(() => t.close());

  describe('GET /v1/plans/{id}/publish_impact', () => {
    it('counts ACTIVE subscriptions tracking latest (split by strategy) and those holding a pin; canceled ones and other plans are not counted', async () => {
      const { plan, product } = await livePlan(api);
      const other = await livePlan(api);
      const version = plan.live_version.id;
      await insertSubscriptions(t, tenant, api, [
        { planId: plan.id, planVersionId: version, planTrackMode: 'latest', versionChangeStrategy: 'immediate' },
        { planId: plan.id, planVersionId: version, planTrackMode: 'latest', versionChangeStrategy: 'next_period' },
        { planId: plan.id, planVersionId: version, planTrackMode: 'latest', versionChangeStrategy: 'next_period' },
        // A product pin makes a latest-tracking subscription a pinned one.
        {
          planId: plan.id,
          planVersionId: version,
          planTrackMode: 'latest',
          versionChangeStrategy: 'immediate',
          pins: { [product.id]: product.live_version.id },
        },
        { planId: plan.id, planVersionId: version, planTrackMode: 'pinned' },
        { planId: plan.id, planVersionId: version, planTrackMode: 'latest', status: 'canceled' },
        { planId: other.plan.id, planVersionId: other.plan.live_version.id, planTrackMode: 'latest' },
      ]);
      const impact = await api.get(`/v1/plans/${plan.id}/publish_impact`);
      expect(impact.status).toBe(200);
      expect(impact.body).toEqual({ would_migrate: 3, pinned: 2, movers_by_strategy: { immediate: 1, next_period: 2 } });
    });

    it('needs no draft and answers zeros for a plan without subscribers', async () => {
      const plan = await createPlan(api);
      await must(api.delete(`/v1/plans/${plan.id}/draft`), 204);
      const impact = await api.get(`/v1/plans/${plan.id}/publish_impact`);
      expect(impact.status).toBe(200);
      expect(impact.body).toEqual({ would_migrate: 0, pinned: 0, movers_by_strategy: { immediate: 0, next_period: 0 } });
    });

    it('is 404 PLAN_NOT_FOUND for an unknown, malformed, deleted or another tenant’s plan', async () => {
      const plan = await createPlan(api);
      expectError(await stranger.get(`/v1/plans/${plan.id}/publish_impact`), 404, 'PLAN_NOT_FOUND');
      expectError(await api.get(`/v1/plans/${randomUUID()}/publish_impact`), 404, 'PLAN_NOT_FOUND');
      expectError(await api.get(`/v1/plans/not-a-uuid/publish_impact`), 404, 'PLAN_NOT_FOUND');
      expectError(
        await t.http.get(`/v1/plans/${plan.id}/publish_impact`).set('Authorization', tenant.sandboxAuth),
        404,
        'PLAN_NOT_FOUND',
      );
      await must(api.delete(`/v1/plans/${plan.id}`), 204);
      expectError(await api.get(`/v1/plans/${plan.id}/publish_impact`), 404, 'PLAN_NOT_FOUND');
    });
  });

  describe('GET /v1/plans/{id}/publish_check', () => {
    it('answers ok for a draft that would publish, and changes nothing (no version, no change, no job, no audit row)', async () => {
      const product = await api.liveProduct('3');
      const plan = await createPlan(api);
      await addMembership(api, plan.id, product.id);
      const before = await digest(t, tenant);
      const check = await api.get(`/v1/plans/${plan.id}/publish_check`);
      expect(check.status).toBe(200);
      expect(check.body).toEqual({ ok: true, code: null, message: null });
      expect(await digest(t, tenant)).toBe(before);
      // And the real publish does succeed.
      expect((await publishPlan(api, plan.id)).status).toBe('applied');
    });

    it('reports PUBLISH_NOTHING_STAGED without a draft or with a draft equal to the head, PUBLISH_ENTITY_ARCHIVED first for an archived plan', async () => {
      const { plan } = await livePlan(api);
      let check = await api.get(`/v1/plans/${plan.id}/publish_check`);
      expect(check.body).toEqual({ ok: false, code: 'PUBLISH_NOTHING_STAGED', message: expect.any(String) });
      await must(api.post(`/v1/plans/${plan.id}/draft`, {}), 200);
      check = await api.get(`/v1/plans/${plan.id}/publish_check`);
      expect(check.body).toMatchObject({ ok: false, code: 'PUBLISH_NOTHING_STAGED' });
      await must(api.patch(`/v1/plans/${plan.id}`, { status: 'archived' }), 200);
      check = await api.get(`/v1/plans/${plan.id}/publish_check`);
      expect(check.body).toMatchObject({ ok: false, code: 'PUBLISH_ENTITY_ARCHIVED' });
      await must(api.delete(`/v1/plans/${plan.id}/draft`), 204);
      check = await api.get(`/v1/plans/${plan.id}/publish_check`);
      expect(check.body).toMatchObject({ ok: false, code: 'PUBLISH_ENTITY_ARCHIVED' });
    });

    it('reports the content refusals of §2.7 step 8: an unpublished member product, a latest-tracking subscriber on another cadence', async () => {
      const unpublished = (await api.post('/v1/products', { name: 'Never live', price_expression: '1' })).body;
      const plan = await createPlan(api);
      await addMembership(api, plan.id, unpublished.id);
      let check = await api.get(`/v1/plans/${plan.id}/publish_check`);
      expect(check.body).toMatchObject({ ok: false, code: 'PUBLISH_DEPENDENCY_UNPUBLISHED' });

      const { plan: live, product } = await livePlan(api);
      await insertSubscriptions(t, tenant, api, [
        { planId: live.id, planVersionId: live.live_version.id, planTrackMode: 'latest', billingCadence: 'month' },
      ]);
      await must(api.patch(`/v1/plans/${live.id}`, { price_cadence_unit: 'year' }), 200);
      check = await api.get(`/v1/plans/${live.id}/publish_check`);
      expect(check.body).toMatchObject({ ok: false, code: 'PUBLISH_CADENCE_MISMATCH' });
      // The real publish refuses the same way.
      const refused = await api.post('/v1/changes', await planChangeBody(api, live.id));
      expectError(refused, 409, 'PUBLISH_CADENCE_MISMATCH');
      expect(product.id).toEqual(expect.any(String));
    });

    it('checks a scheduled publish with ?scheduled_for=: in the past, slot taken, before its base release; a valid one is ok and leaves the queue empty', async () => {
      const { plan } = await livePlan(api);
      await must(api.patch(`/v1/plans/${plan.id}`, { price_cadence_unit: 'week' }), 200);
      const past = await api.get(`/v1/plans/${plan.id}/publish_check?scheduled_for=2020-01-01T00:00:00Z`);
      expect(past.body).toMatchObject({ ok: false, code: 'PUBLISH_SCHEDULE_IN_PAST' });
      const future = '2099-01-01T00:00:00Z';
      const before = await digest(t, tenant);
      const ok = await api.get(`/v1/plans/${plan.id}/publish_check?scheduled_for=${future}`);
      expect(ok.body).toEqual({ ok: true, code: null, message: null });
      expect(await digest(t, tenant)).toBe(before);
      const release = await publishPlan(api, plan.id, { scheduled_for: future });
      expect(release.status).toBe('pending');
      // A draft based on that release cannot go live now, nor at the release's own instant.
      const scheduledVersion = (await api.get(`/v1/plans/${plan.id}/versions?status=scheduled`)).body.data[0];
      await must(api.post(`/v1/plans/${plan.id}/draft`, { base_version_id: scheduledVersion.id }), 200);
      await must(api.patch(`/v1/plans/${plan.id}`, { price_cadence_unit: 'year' }), 200);
      expect((await api.get(`/v1/plans/${plan.id}/publish_check`)).body).toMatchObject({
        ok: false,
        code: 'PUBLISH_BEFORE_BASE_RELEASE',
      });
      expect((await api.get(`/v1/plans/${plan.id}/publish_check?scheduled_for=${future}`)).body).toMatchObject({
        ok: false,
        code: 'PUBLISH_SCHEDULE_TAKEN',
      });
      expect((await api.get(`/v1/plans/${plan.id}/publish_check?scheduled_for=2099-06-01T00:00:00Z`)).body).toMatchObject({
        ok: true,
      });
    });

    it('refuses a malformed scheduled_for or an unknown parameter (400) and an unknown or foreign plan (404)', async () => {
      const plan = await createPlan(api);
      expectError(await api.get(`/v1/plans/${plan.id}/publish_check?scheduled_for=tomorrow`), 400, 'VALIDATION_ERROR');
      expectError(await api.get(`/v1/plans/${plan.id}/publish_check?scheduled_for=2099-01-01`), 400, 'VALIDATION_ERROR');
      expectError(await api.get(`/v1/plans/${plan.id}/publish_check?dry=1`), 400, 'VALIDATION_ERROR');
      expectError(await api.get(`/v1/plans/${randomUUID()}/publish_check`), 404, 'PLAN_NOT_FOUND');
      expectError(await stranger.get(`/v1/plans/${plan.id}/publish_check`), 404, 'PLAN_NOT_FOUND');
    });

    it('fires a due release as part of the dry run (catch-up), and rolls that back too', async () => {
      const { plan } = await livePlan(api);
      await must(api.patch(`/v1/plans/${plan.id}`, { price_cadence_unit: 'week' }), 200);
      const release = await publishPlan(api, plan.id, { scheduled_for: new Date(Date.now() + 1500).toISOString() });
      // Keep the queue's worker out of it: once due, only a load (catch-up) fires the release.
      await t.app.get(DataSource).query(`DELETE FROM pgboss.job WHERE singleton_key = $1`, [release.id]);
      const scheduled = (await api.get(`/v1/plans/${plan.id}/versions?status=scheduled`)).body.data[0];
      await must(api.post(`/v1/plans/${plan.id}/draft`, { base_version_id: scheduled.id }), 200);
      await must(api.patch(`/v1/plans/${plan.id}`, { price_cadence_unit: 'year' }), 200);
      // While the release is pending, a draft based on it cannot go live now.
      expect((await api.get(`/v1/plans/${plan.id}/publish_check`)).body).toMatchObject({
        ok: false,
        code: 'PUBLISH_BEFORE_BASE_RELEASE',
      });
      await new Promise((resolve) => setTimeout(resolve, 1600));
      const before = await digest(t, tenant);
      // Once it is due, the dry run fires it first: the draft's base is then the head, and the publish would pass.
      expect((await api.get(`/v1/plans/${plan.id}/publish_check`)).body).toEqual({ ok: true, code: null, message: null });
      expect(await digest(t, tenant)).toBe(before);
      expect((await api.get(`/v1/changes/${release.id}`)).body.status).toBe('pending');
    });
  });

  describe('versions: supersede_forecast, referrers, usage', () => {
    let plan: any;
    let v1: string;
    let v2: string;
    let subscriptions: string[];

    beforeAll(async () => {
      const live = await livePlan(api);
      plan = live.plan;
      v1 = plan.live_version.id;
      const t0 = Date.now();
      subscriptions = await insertSubscriptions(t, tenant, api, [
        { planId: plan.id, planVersionId: v1, createdAt: new Date(t0 - 3000) },
        { planId: plan.id, planVersionId: v1, createdAt: new Date(t0 - 2000), status: 'canceled' },
        { planId: plan.id, planVersionId: v1, createdAt: new Date(t0 - 1000) },
      ]);
      await must(api.patch(`/v1/plans/${plan.id}`, { price_cadence_unit: 'year' }), 200);
      await publishPlan(api, plan.id);
      v2 = (await api.get(`/v1/plans/${plan.id}`)).body.live_version.id;
      await must(api.patch(`/v1/plans/${plan.id}`, { price_cadence_unit: 'week' }), 200);
    });

    it('forecasts: pinnable when the version went live; never republishes consumers; live readers are ACTIVE subscriptions on it', async () => {
      expect((await api.get(`/v1/plans/${plan.id}/versions/1/supersede_forecast`)).body).toEqual({
        pinnable: true,
        republishes_consumers: false,
        live_readers: 2,
      });
      expect((await api.get(`/v1/plans/${plan.id}/versions/2/supersede_forecast`)).body).toEqual({
        pinnable: true,
        republishes_consumers: false,
        live_readers: 0,
      });
      // The open draft (version 3) never went live.
      expect((await api.get(`/v1/plans/${plan.id}/versions/3/supersede_forecast`)).body).toEqual({
        pinnable: false,
        republishes_consumers: false,
        live_readers: 0,
      });
      // Uncached: a new subscriber shows at once.
      await insertSubscriptions(t, tenant, api, [{ planId: plan.id, planVersionId: v2 }]);
      expect((await api.get(`/v1/plans/${plan.id}/versions/2/supersede_forecast`)).body.live_readers).toBe(1);
    });

    it('lists subscription referrers of any status newest first, paginated by a signed offset cursor bound to plan, version and type', async () => {
      const first = await api.get(`/v1/plans/${plan.id}/versions/1/referrers?type=subscription&limit=2`);
      expect(first.status).toBe(200);
      expect(first.body.data).toEqual([
        { referrer_type: 'subscription', referrer_id: subscriptions[2], created_at: expect.any(String) },
        { referrer_type: 'subscription', referrer_id: subscriptions[1], created_at: expect.any(String) },
      ]);
      expect(first.body.pagination).toEqual({ cursor: expect.any(String), has_more: true });
      const second = await api.get(
        `/v1/plans/${plan.id}/versions/1/referrers?type=subscription&limit=2&cursor=${first.body.pagination.cursor}`,
      );
      expect(second.body).toEqual({
        data: [{ referrer_type: 'subscription', referrer_id: subscriptions[0], created_at: expect.any(String) }],
        pagination: { cursor: null, has_more: false },
      });
      const cursor = first.body.pagination.cursor;
      expectError(await api.get(`/v1/plans/${plan.id}/versions/1/referrers?type=change&cursor=${cursor}`), 400, 'INVALID_CURSOR');
      expectError(
        await api.get(`/v1/plans/${plan.id}/versions/2/referrers?type=subscription&cursor=${cursor}`),
        400,
        'INVALID_CURSOR',
      );
      expectError(
        await api.get(`/v1/plans/${plan.id}/versions/1/referrers?type=subscription&cursor=${cursor}x`),
        400,
        'INVALID_CURSOR',
      );
    });

    it('lists change referrers: the change that staged or produced the version', async () => {
      const changes = await api.get(`/v1/plans/${plan.id}/versions/2/referrers?type=change`);
      expect(changes.status).toBe(200);
      expect(changes.body.data).toEqual([
        { referrer_type: 'change', referrer_id: expect.any(String), created_at: expect.any(String) },
      ]);
      const change = await api.get(`/v1/changes/${changes.body.data[0].referrer_id}`);
      expect(change.body).toMatchObject({ subject_id: plan.id, result: { id: v2, version: 2 } });
      expect((await api.get(`/v1/plans/${plan.id}/versions/3/referrers?type=change`)).body).toEqual({
        data: [],
        pagination: { cursor: null, has_more: false },
      });
    });

    it('counts referrers by type in usage, and the version list’s usage_count is their sum', async () => {
      const usage = await api.get(`/v1/plans/${plan.id}/versions/1/usage`);
      expect(usage.status).toBe(200);
      expect(usage.body).toEqual({ referrer_counts: { subscription: 3, change: 1 } });
      const listed = await api.get(`/v1/plans/${plan.id}/versions?include=usage_count`);
      expect(listed.body.data.find((row: any) => row.version === 1).usage_count).toBe(4);
    });

    it('refuses a type that is missing or unknown, and a version that is not a positive integer, with 400 VALIDATION_ERROR', async () => {
      expect(expectError(await api.get(`/v1/plans/${plan.id}/versions/1/referrers`), 400, 'VALIDATION_ERROR').param).toBe('type');
      expectError(await api.get(`/v1/plans/${plan.id}/versions/1/referrers?type=invoice`), 400, 'VALIDATION_ERROR');
      for (const version of ['0', '-1', 'abc', '1.5', '1e2', '99999999999', '2147483648']) {
        for (const route of ['supersede_forecast', 'referrers?type=change', 'usage']) {
          const response = await api.get(`/v1/plans/${plan.id}/versions/${version}/${route}`);
          expect({ version, route, code: expectError(response, 400, 'VALIDATION_ERROR').param }).toEqual({
            version,
            route,
            code: 'version',
          });
        }
      }
    });

    it('is 404 VERSION_NOT_FOUND for a number the plan never had, 404 PLAN_NOT_FOUND for another tenant’s plan', async () => {
      for (const route of ['supersede_forecast', 'referrers?type=subscription', 'usage']) {
        expectError(await api.get(`/v1/plans/${plan.id}/versions/42/${route}`), 404, 'VERSION_NOT_FOUND');
        expectError(await api.get(`/v1/plans/${plan.id}/versions/2147483647/${route}`), 404, 'VERSION_NOT_FOUND');
        expectError(await stranger.get(`/v1/plans/${plan.id}/versions/1/${route}`), 404, 'PLAN_NOT_FOUND');
        expectError(await api.get(`/v1/plans/${randomUUID()}/versions/1/${route}`), 404, 'PLAN_NOT_FOUND');
      }
    });
  });

  describe('POST /v1/plans/republish', () => {
    it('refuses plan_ids that are missing, empty, over 100, duplicated or not UUIDs (400), storing nothing', async () => {
      const id = randomUUID();
      for (const body of [
        {},
        { plan_ids: [] },
        { plan_ids: Array.from({ length: 101 }, () => randomUUID()) },
        { plan_ids: [id, id] },
        { plan_ids: [id, id.toUpperCase()] },
        { plan_ids: ['not-a-uuid'] },
        { plan_ids: [42] },
        { plan_ids: id },
      ]) {
        expectError(await api.post('/v1/plans/republish', body), 400, 'VALIDATION_ERROR');
      }
      expectError(
        await t.http
          .post('/v1/plans/republish')
          .set('Authorization', tenant.auth)
          .send({ plan_ids: [id] }),
        400,
        'IDEMPOTENCY_KEY_REQUIRED',
      );
    });

    it('answers per plan, in input order: republished, unchanged (live or never published), failed (unknown, foreign, archived)', async () => {
      // A plan whose membership was pinned at publish, then switched to latest while the product moved on.
      const product = await api.liveProduct('5');
      const behind = await createPlan(api);
      await addMembership(api, behind.id, product.id, { product_track_mode: 'pinned' });
      await publishPlan(api, behind.id);
      const productDraft = await api.patch(`/v1/products/${product.id}`, { price_expression: '6' });
      expect(productDraft.status).toBe(200);
      await api.publish(product.id);
      await must(api.patch(`/v1/plans/${behind.id}/products/${product.id}`, { product_track_mode: 'latest' }), 200);
      // An open draft with a staged edit: it keeps its content and id; only its number moves up.
      await must(api.patch(`/v1/plans/${behind.id}`, { price_cadence_unit: 'week' }), 200);
      const draftBefore = (await api.get(`/v1/plans/${behind.id}/draft`)).body;
      expect(draftBefore.version).toBe(2);

      const { plan: current } = await livePlan(api);
      const never = await createPlan(api);
      const { plan: archived } = await livePlan(api);
      await must(api.patch(`/v1/plans/${archived.id}`, { status: 'archived' }), 200);
      const foreign = await createPlan(stranger);
      const unknown = randomUUID();

      const response = await api.post('/v1/plans/republish', {
        plan_ids: [behind.id, current.id, never.id, archived.id, foreign.id, unknown],
      });
      expect(response.status).toBe(200);
      expect(response.body).toEqual({
        data: [
          { plan_id: behind.id, status: 'republished', version: 2, error: null },
          { plan_id: current.id, status: 'unchanged', version: 1, error: null },
          { plan_id: never.id, status: 'unchanged', version: null, error: null },
          {
            plan_id: archived.id,
            status: 'failed',
            version: null,
            error: { code: 'PUBLISH_ENTITY_ARCHIVED', message: expect.any(String) },
          },
          {
            plan_id: foreign.id,
            status: 'failed',
            version: null,
            error: { code: 'PLAN_NOT_FOUND', message: expect.any(String) },
          },
          { plan_id: unknown, status: 'failed', version: null, error: { code: 'PLAN_NOT_FOUND', message: expect.any(String) } },
        ],
      });
      const republished = (await api.get(`/v1/plans/${behind.id}/versions/2`)).body;
      expect(republished).toMatchObject({
        status: 'published',
        origin: 'manual',
        cascade_source: null,
        price_cadence_unit: 'month',
      });
      expect(republished.products).toEqual([
        expect.objectContaining({ product_id: product.id, product_track_mode: 'latest', product_version: 2 }),
      ]);
      expect((await api.get(`/v1/plans/${behind.id}/versions/1`)).body).toMatchObject({
        status: 'archived',
        archived_reason: 'superseded',
      });
      const draftAfter = (await api.get(`/v1/plans/${behind.id}/draft`)).body;
      expect(draftAfter).toMatchObject({ id: draftBefore.id, version: 3, price_cadence_unit: 'week', base_version: 1 });
      // A second call finds nothing to move.
      const again = await api.post('/v1/plans/republish', { plan_ids: [behind.id] });
      expect(again.body.data).toEqual([{ plan_id: behind.id, status: 'unchanged', version: 2, error: null }]);
      // The foreign plan is untouched.
      expect((await stranger.get(`/v1/plans/${foreign.id}`)).body).toMatchObject({ status: 'draft', version: 1 });
    });

    it('reports a precondition failure per plan and rolls back only that plan', async () => {
      const { plan, product } = await livePlan(api, { product_track_mode: 'pinned' });
      await must(api.patch(`/v1/products/${product.id}`, { price_expression: '7' }), 200);
      await api.publish(product.id);
      await must(api.patch(`/v1/plans/${plan.id}/products/${product.id}`, { product_track_mode: 'latest' }), 200);
      await insertSubscriptions(t, tenant, api, [
        { planId: plan.id, planVersionId: plan.live_version.id, planTrackMode: 'latest', billingCadence: 'year' },
      ]);
      const response = await api.post('/v1/plans/republish', { plan_ids: [plan.id] });
      expect(response.body.data).toEqual([
        {
          plan_id: plan.id,
          status: 'failed',
          version: null,
          error: { code: 'PUBLISH_CADENCE_MISMATCH', message: expect.any(String) },
        },
      ]);
      expect((await api.get(`/v1/plans/${plan.id}`)).body).toMatchObject({ version: 1 });
    });
  });

  describe('cascades into plans', () => {
    async function runsOf(productId: string): Promise<any[]> {
      return t.app
        .get(DataSource)
        .query(`SELECT id FROM cascade_runs WHERE source_id = $1 AND trigger = 'product_go_live' ORDER BY created_at`, [
          productId,
        ]);
    }

    it('a product publish moves every live plan tracking it latest to a cascade version; pinned, archived and deleted plans stay', async () => {
      const product = await api.liveProduct('10');
      const follower = await createPlan(api);
      await addMembership(api, follower.id, product.id);
      await publishPlan(api, follower.id);
      const pinned = await createPlan(api);
      await addMembership(api, pinned.id, product.id, { product_track_mode: 'pinned' });
      await publishPlan(api, pinned.id);
      const archived = await createPlan(api);
      await addMembership(api, archived.id, product.id);
      await publishPlan(api, archived.id);
      await must(api.patch(`/v1/plans/${archived.id}`, { status: 'archived' }), 200);
      const draftOnly = await createPlan(api);
      await addMembership(api, draftOnly.id, product.id);

      await must(api.patch(`/v1/products/${product.id}`, { price_expression: '11' }), 200);
      const change = await api.publish(product.id);
      const [run] = await runsOf(product.id);
      expect(run).toBeDefined();
      const pending = await api.get(`/v1/cascade_runs/${run.id}`);
      expect(pending.body).toMatchObject({
        trigger: 'product_go_live',
        root_run_id: null,
        source: { entity_type: 'product', entity_id: product.id, version_id: change.result.id, version: 2 },
        counts: { total: 1 },
      });
      await drainCascades(t);

      const run2 = await api.get(`/v1/cascade_runs/${run.id}`);
      expect(run2.body).toMatchObject({
        status: 'completed',
        counts: { total: 1, pending: 0, republished: 1, unchanged: 0, errored: 0 },
      });
      const tasks = await api.get(`/v1/cascade_runs/${run.id}/tasks`);
      expect(tasks.body.data).toEqual([
        expect.objectContaining({
          subject_kind: 'plan',
          subject_id: follower.id,
          status: 'republished',
          result_version: { id: expect.any(String), version: 2 },
        }),
      ]);
      const moved = (await api.get(`/v1/plans/${follower.id}/versions/2`)).body;
      expect(moved).toMatchObject({
        status: 'published',
        origin: 'cascade',
        cascade_source: { entity_type: 'product', entity_id: product.id, version_id: change.result.id, version: 2 },
        created_by: expect.objectContaining({ via: 'cascade' }),
      });
      expect(moved.products).toEqual([
        expect.objectContaining({ product_id: product.id, product_version_id: change.result.id, product_version: 2 }),
      ]);
      for (const stay of [pinned, archived]) expect((await api.get(`/v1/plans/${stay.id}`)).body.version).toBe(1);
      expect((await api.get(`/v1/plans/${draftOnly.id}`)).body).toMatchObject({ status: 'draft', live_version: null });
    });

    it('an ORG cost change republishing two products of one plan moves the plan once, inside the cost’s run', async () => {
      const cost = await api.orgCost(`fee_${randomUUID().slice(0, 8)}`, { amount: '1' });
      const a = await api.liveProduct(`${cost.key} * 2`);
      const b = await api.liveProduct(`${cost.key} * 3`);
      const plan = await createPlan(api);
      await addMembership(api, plan.id, a.id);
      await addMembership(api, plan.id, b.id);
      await publishPlan(api, plan.id);
      const saved = await api.patch(`/v1/costs/${cost.id}`, { amount: '2' });
      expect(saved.status).toBe(200);
      await drainCascades(t);
      const run = await api.get(`/v1/cascade_runs/${saved.body.cascade_run_id}`);
      expect(run.body).toMatchObject({ status: 'completed', counts: { total: 3, republished: 3, errored: 0 } });
      const tasks = (await api.get(`/v1/cascade_runs/${saved.body.cascade_run_id}/tasks`)).body.data;
      expect(tasks.filter((task: any) => task.subject_kind === 'plan')).toEqual([
        expect.objectContaining({
          subject_id: plan.id,
          status: 'republished',
          result_version: { id: expect.any(String), version: 2 },
        }),
      ]);
      const versions = (await api.get(`/v1/plans/${plan.id}/versions`)).body.data;
      expect(versions.map((row: any) => [row.version, row.status, row.origin])).toEqual([
        [2, 'published', 'cascade'],
        [1, 'archived', 'manual'],
      ]);
      const live = (await api.get(`/v1/plans/${plan.id}/versions/2`)).body.products;
      expect(live.map((row: any) => row.product_version)).toEqual([2, 2]);
    });

    it('a fired product release cascades too; a plan whose content no longer resolves gets an errored version and keeps its head', async () => {
      const product = await api.liveProduct('20');
      const plan = await createPlan(api);
      await addMembership(api, plan.id, product.id);
      await publishPlan(api, plan.id);
      await must(api.patch(`/v1/products/${product.id}`, { price_expression: '21' }), 200);
      const release = await scheduleDraft(api, product.id, new Date(Date.now() + 1200));
      // A latest-tracking subscriber on another cadence makes the plan's re-resolution fail.
      await insertSubscriptions(t, tenant, api, [
        {
          planId: plan.id,
          planVersionId: (await api.get(`/v1/plans/${plan.id}`)).body.live_version.id,
          planTrackMode: 'latest',
          billingCadence: 'week',
        },
      ]);
      await new Promise((resolve) => setTimeout(resolve, 1300));
      // Catch-up on the next command fires the release (or the job already did).
      await api.post(`/v1/products/${product.id}/draft`, {});
      expect((await api.get(`/v1/changes/${release.id}`)).body.status).toBe('applied');
      const [run] = await runsOf(product.id);
      expect(run).toBeDefined();
      await drainCascades(t);
      const tasks = (await api.get(`/v1/cascade_runs/${run.id}/tasks`)).body.data;
      expect(tasks).toEqual([
        expect.objectContaining({
          subject_kind: 'plan',
          subject_id: plan.id,
          status: 'errored',
          error: expect.objectContaining({ code: 'PUBLISH_CADENCE_MISMATCH' }),
        }),
      ]);
      const errored = (await api.get(`/v1/plans/${plan.id}/versions?archived_reason=errored`)).body.data;
      expect(errored).toEqual([
        expect.objectContaining({
          version: 2,
          status: 'archived',
          archived_reason: 'errored',
          origin: 'cascade',
          cascade_source: expect.objectContaining({ entity_id: product.id }),
        }),
      ]);
      expect((await api.get(`/v1/plans/${plan.id}`)).body.live_version.version).toBe(1);
    });
  });
});

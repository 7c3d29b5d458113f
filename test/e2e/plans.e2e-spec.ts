import { randomUUID } from 'node:crypto';
import { Response } from 'supertest';
import { DataSource } from 'typeorm';
import { expectError } from '../support/auth-helpers';
import { CatalogClient } from '../support/catalog-helpers';
import { ISO } from '../support/expectations';
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

/**
 * The plan routes of spec §4.4 row by row (model §4, §5): create, get, merge-patch update,
 * archive, delete, copy, the staged draft, memberships and their terms, versions and their
 * annotations, and publishing through changes — each refusal with its status and code, and
 * another tenant's view of every plan as a 404.
 */
describe('Plans (spec 4.4)', () => {
  let t: TestApp;
  let tenant: TestTenant;
  let api: CatalogClient;
  let stranger: CatalogClient;
  let sandbox: CatalogClient;

  beforeAll(async () => {
    t = await createTestApp();
    tenant = await createTenant(t);
    api = new CatalogClient(t, tenant.auth);
    sandbox = new CatalogClient(t, tenant.sandboxAuth);
    stranger = new CatalogClient(t, (await createTenant(t)).auth);
  });
  afterAll(() => t.close());

  const planPath = (id: string, rest = '') => `/v1/plans/${id}${rest}`;
  const read = async (id: string) => (await must(api.get(planPath(id)), 200)).body;

  describe('create and get', () => {
    it('creates a draft plan at version 1 with every field, its working draft open, and a Location', async () => {
      const body = {
        name: 'Growth',
        description: 'Internal: EU SMB',
        public_description: 'Everything a growing team needs.',
        external_id: `crm-${randomUUID()}`,
        metadata: { owner: 'growth' },
        custom_fields: { region: 'eu', tier: 2 },
        translations: { de: { name: 'Wachstum' } },
        tags: ['smb', 'eu'],
        price_cadence_unit: 'year',
      };
      const created = await must(api.post('/v1/plans', body), 201);
      expect(created.headers.location).toBe(`/v1/plans/${created.body.id}`);
      expect(created.body).toEqual({
        object: 'plan',
        id: expect.any(String),
        ...body,
        status: 'draft',
        version: 1,
        live_version: null,
        draft_version: { id: expect.any(String), version: 1 },
        has_scheduled_version: false,
        next_release_at: null,
        published_at: null,
        archived_at: null,
        created_at: expect.stringMatching(ISO),
        updated_at: expect.stringMatching(ISO),
        products: [],
      });
      expect(await read(created.body.id)).toEqual(created.body);
    });

    it('defaults: no optional field gives month, empty objects and null texts', async () => {
      const plan = await createPlan(api, { name: 'Bare' });
      expect(plan).toMatchObject({
        name: 'Bare',
        description: null,
        public_description: null,
        external_id: null,
        metadata: {},
        custom_fields: {},
        translations: {},
        tags: [],
        price_cadence_unit: 'month',
      });
    });

    it('refuses a missing or blank name, a bad cadence, an unknown or read-only field (400 VALIDATION_ERROR), a taken external_id (409 ALREADY_EXISTS)', async () => {
      expectError(await api.post('/v1/plans', {}), 400, 'VALIDATION_ERROR');
      expectError(await api.post('/v1/plans', { name: '  ' }), 400, 'VALIDATION_ERROR');
      expectError(await api.post('/v1/plans', { name: 'x'.repeat(201) }), 400, 'VALIDATION_ERROR');
      expectError(await api.post('/v1/plans', { name: 'A', price_cadence_unit: 'day' }), 400, 'VALIDATION_ERROR');
      for (const field of ['status', 'version', 'id', 'workspace_id', 'colour']) {
        const refused = expectError(await api.post('/v1/plans', { name: 'A', [field]: 'x' }), 400, 'VALIDATION_ERROR');
        expect(refused.errors).toEqual([expect.objectContaining({ param: field, code: 'UNKNOWN_PARAMETER' })]);
      }
      const externalId = `dup-${randomUUID()}`;
      await createPlan(api, { external_id: externalId });
      expectError(await api.post('/v1/plans', { name: 'B', external_id: externalId }), 409, 'ALREADY_EXISTS');
      // Another workspace (the sandbox) may use the same external_id.
      await must(sandbox.post('/v1/plans', { name: 'B', external_id: externalId }), 201);
    });

    it('is 404 PLAN_NOT_FOUND for an unknown id, a malformed id, another organization’s plan and another workspace’s plan', async () => {
      const plan = await createPlan(api);
      expectError(await api.get(planPath(randomUUID())), 404, 'PLAN_NOT_FOUND');
      expectError(await api.get(planPath('42')), 404, 'PLAN_NOT_FOUND');
      expectError(await stranger.get(planPath(plan.id)), 404, 'PLAN_NOT_FOUND');
      expectError(await sandbox.get(planPath(plan.id)), 404, 'PLAN_NOT_FOUND');
    });
  });

  describe('update (merge-patch)', () => {
    it('changes only the fields sent; null leaves a field; "" clears a text; display fields land live without a version', async () => {
      const { plan } = await livePlan(
        api,
        {},
        { description: 'old', public_description: 'public', external_id: `ext-${randomUUID()}`, metadata: { a: 1 } },
      );
      const renamed = await must(api.patch(planPath(plan.id), { name: 'Renamed', metadata: { b: 2 } }), 200);
      expect(renamed.body).toMatchObject({
        name: 'Renamed',
        description: 'old',
        public_description: 'public',
        external_id: plan.external_id,
        metadata: { b: 2 },
      });
      const nulls = await must(
        api.patch(planPath(plan.id), {
          name: null,
          description: null,
          external_id: null,
          public_description: null,
          price_cadence_unit: null,
          status: null,
        }),
        200,
      );
      expect(nulls.body).toMatchObject({
        name: 'Renamed',
        description: 'old',
        public_description: 'public',
        external_id: plan.external_id,
        status: 'active',
      });
      expect(nulls.body.draft_version).toBeNull();
      const cleared = await must(api.patch(planPath(plan.id), { description: '', public_description: '', external_id: '' }), 200);
      expect(cleared.body).toMatchObject({ description: null, public_description: null, external_id: null });
      // Live: no version was made, no draft opened; the version keeps the fields it froze.
      expect(cleared.body).toMatchObject({ version: 1, draft_version: null });
      expect((await must(api.get(planPath(plan.id, '/versions/1')), 200)).body).toMatchObject({
        name: 'Growth',
        description: 'old',
      });
    });

    it('stages price_cadence_unit in the working draft: the live version keeps billing on its cadence until a publish', async () => {
      const { plan } = await livePlan(api);
      const staged = await must(api.patch(planPath(plan.id), { price_cadence_unit: 'year' }), 200);
      expect(staged.body).toMatchObject({ price_cadence_unit: 'year', version: 1, draft_version: { version: 2 } });
      expect((await api.get(planPath(plan.id, '/versions/1'))).body.price_cadence_unit).toBe('month');
      expect((await api.get(planPath(plan.id, '/draft'))).body.summary).toEqual({
        fields_changed: ['price_cadence_unit'],
        products_added: [],
        products_removed: [],
        memberships_changed: [],
      });
      expectError(await api.patch(planPath(plan.id), { price_cadence_unit: 'fortnight' }), 400, 'VALIDATION_ERROR');
    });

    it('checks expected_version against the live version: stale → 409 CONFLICT with current_version and nothing changed; omitted → last write wins', async () => {
      const { plan } = await livePlan(api);
      await must(api.patch(planPath(plan.id), { name: 'v1 edit', expected_version: 1 }), 200);
      await must(api.patch(planPath(plan.id), { price_cadence_unit: 'week' }), 200);
      await publishPlan(api, plan.id);
      const stale = expectError(await api.patch(planPath(plan.id), { name: 'lost', expected_version: 1 }), 409, 'CONFLICT');
      expect(stale).toMatchObject({ param: 'expected_version', details: { current_version: 2 } });
      expect((await read(plan.id)).name).toBe('v1 edit');
      await must(api.patch(planPath(plan.id), { name: 'fresh', expected_version: 2 }), 200);
      await must(api.patch(planPath(plan.id), { name: 'blind' }), 200);
      expect((await read(plan.id)).name).toBe('blind');
      expectError(await api.patch(planPath(plan.id), { expected_version: 0 }), 400, 'VALIDATION_ERROR');
      expectError(await api.patch(planPath(plan.id), { expected_version: '2' }), 400, 'VALIDATION_ERROR');
      // A never-published plan is at version 1.
      const fresh = await createPlan(api);
      expect(
        expectError(await api.patch(planPath(fresh.id), { name: 'x', expected_version: 2 }), 409, 'CONFLICT').details,
      ).toEqual({ current_version: 1 });
    });

    it('refuses status active (PUBLISH_VIA_CHANGE_REQUIRED), draft or scheduled (STATUS_NOT_WRITABLE), anything else (VALIDATION_ERROR), and every publish control (FIELD_NOT_ALLOWED)', async () => {
      const plan = await createPlan(api);
      expect(
        expectError(await api.patch(planPath(plan.id), { status: 'active' }), 400, 'PUBLISH_VIA_CHANGE_REQUIRED').param,
      ).toBe('status');
      for (const status of ['draft', 'scheduled'])
        expectError(await api.patch(planPath(plan.id), { status }), 400, 'STATUS_NOT_WRITABLE');
      expectError(await api.patch(planPath(plan.id), { status: 'deleted' }), 400, 'VALIDATION_ERROR');
      for (const [field, value] of Object.entries({
        effective_at: '2027-01-01T00:00:00Z',
        save_as_draft: true,
        publish_now: true,
        product_version_pins: [{ product_id: randomUUID(), product_version_id: randomUUID() }],
      })) {
        expect(
          expectError(await api.patch(planPath(plan.id), { name: 'Nope', [field]: value }), 400, 'FIELD_NOT_ALLOWED').param,
        ).toBe(field);
      }
      expect(await read(plan.id)).toMatchObject({ name: 'Growth', status: 'draft' });
    });

    it('keeps external_id unique per workspace (409 ALREADY_EXISTS) and answers 404 for an unknown or foreign plan', async () => {
      const taken = `taken-${randomUUID()}`;
      await createPlan(api, { external_id: taken });
      const plan = await createPlan(api);
      expect(expectError(await api.patch(planPath(plan.id), { external_id: taken }), 409, 'ALREADY_EXISTS').param).toBe(
        'external_id',
      );
      expectError(await api.patch(planPath(randomUUID()), { name: 'x' }), 404, 'PLAN_NOT_FOUND');
      expectError(await stranger.patch(planPath(plan.id), { name: 'Hijacked' }), 404, 'PLAN_NOT_FOUND');
      expect((await read(plan.id)).name).toBe('Growth');
    });

    it('archives (terminal): the queue is canceled, the head keeps billing, display edits still land, staging edits and publishes are refused', async () => {
      const { plan } = await livePlan(api);
      await must(api.patch(planPath(plan.id), { price_cadence_unit: 'year' }), 200);
      const release = await publishPlan(api, plan.id, { scheduled_for: '2099-01-01T00:00:00Z' });
      expect((await read(plan.id)).has_scheduled_version).toBe(true);
      const archived = await must(api.patch(planPath(plan.id), { status: 'archived' }), 200);
      expect(archived.body).toMatchObject({
        status: 'archived',
        archived_at: expect.stringMatching(ISO),
        has_scheduled_version: false,
        live_version: { version: 1 },
      });
      expect((await api.get(`/v1/changes/${release.id}`)).body.status).toBe('canceled');
      expect((await api.get(planPath(plan.id, '/versions/2'))).body).toMatchObject({
        status: 'archived',
        archived_reason: 'canceled',
      });
      expect((await api.get(planPath(plan.id, '/versions/1'))).body.status).toBe('published');
      await must(api.patch(planPath(plan.id), { name: 'Retired', status: 'archived' }), 200);
      expectError(await api.patch(planPath(plan.id), { price_cadence_unit: 'week' }), 409, 'ENTITY_ARCHIVED');
      expectError(await api.post(planPath(plan.id, '/draft'), {}), 409, 'ENTITY_ARCHIVED');
      const product = await api.liveProduct('1');
      expectError(await api.post(planPath(plan.id, '/products'), { product_id: product.id }), 409, 'ENTITY_ARCHIVED');
      expect(await read(plan.id)).toMatchObject({ name: 'Retired', status: 'archived' });
    });
  });

  describe('delete (soft)', () => {
    it('answers 204, then 404 everywhere; its queue is canceled, its draft discarded, its versions kept, its external_id free', async () => {
      const externalId = `gone-${randomUUID()}`;
      const { plan } = await livePlan(api, {}, { external_id: externalId });
      await must(api.patch(planPath(plan.id), { price_cadence_unit: 'year' }), 200);
      const release = await publishPlan(api, plan.id, { scheduled_for: '2099-01-01T00:00:00Z' });
      await must(api.patch(planPath(plan.id), { price_cadence_unit: 'week' }), 200);
      expectError(await stranger.delete(planPath(plan.id)), 404, 'PLAN_NOT_FOUND');
      await must(api.delete(planPath(plan.id)), 204);
      for (const path of ['', '/draft', '/versions', '/versions/1', '/publish_impact'])
        expectError(await api.get(planPath(plan.id, path)), 404, 'PLAN_NOT_FOUND');
      expectError(await api.delete(planPath(plan.id)), 404, 'PLAN_NOT_FOUND');
      expectError(await api.patch(planPath(plan.id), { name: 'x' }), 404, 'PLAN_NOT_FOUND');
      expect((await api.get(`/v1/changes/${release.id}`)).body.status).toBe('canceled');
      const rows = await t.app
        .get(DataSource)
        .query(`SELECT version, status, archived_reason FROM plan_versions WHERE plan_id = $1 ORDER BY version`, [plan.id]);
      expect(rows).toEqual([
        { version: 1, status: 'published', archived_reason: null },
        { version: 2, status: 'archived', archived_reason: 'canceled' },
        { version: 3, status: 'archived', archived_reason: 'discarded' },
      ]);
      await createPlan(api, { external_id: externalId });
    });
  });

  describe('copy', () => {
    it('makes a draft plan at version 1 named "<name> (Copy)" with the live fields (not external_id) and every membership, and no versions', async () => {
      const product = await api.liveProduct('4');
      const other = await api.liveProduct('5');
      const source = await createPlan(api, {
        description: 'desc',
        metadata: { k: 'v' },
        external_id: `src-${randomUUID()}`,
        price_cadence_unit: 'year',
        tags: ['x'],
      });
      await addMembership(api, source.id, product.id, { included_quantity: '100', refresh_unit: 'month', max_quantity: 9 });
      await addMembership(api, source.id, other.id, { product_track_mode: 'pinned' });
      await publishPlan(api, source.id);
      const copied = await must(api.post(planPath(source.id, '/copy'), {}), 201);
      expect(copied.headers.location).toBe(`/v1/plans/${copied.body.id}`);
      expect(copied.body).toMatchObject({
        name: 'Growth (Copy)',
        description: 'desc',
        metadata: { k: 'v' },
        tags: ['x'],
        external_id: null,
        status: 'draft',
        version: 1,
        live_version: null,
        price_cadence_unit: 'year',
      });
      expect(copied.body.products).toEqual([
        expect.objectContaining({
          product_id: product.id,
          included_quantity: '100',
          refresh_unit: 'month',
          refresh_count: 1,
          max_quantity: 9,
          product_track_mode: 'latest',
        }),
        expect.objectContaining({
          product_id: other.id,
          product_track_mode: 'pinned',
          pinned_product_version_id: other.live_version.id,
        }),
      ]);
      expect((await api.get(planPath(copied.body.id, '/versions'))).body.data).toEqual([]);
      const named = await must(api.post(planPath(source.id, '/copy'), { name: 'Growth 2027' }), 201);
      expect(named.body.name).toBe('Growth 2027');
      expectError(await api.post(planPath(source.id, '/copy'), { name: '' }), 400, 'VALIDATION_ERROR');
      expectError(await api.post(planPath(source.id, '/copy'), { name: 'A', external_id: 'x' }), 400, 'VALIDATION_ERROR');
      expectError(await api.post(planPath(randomUUID(), '/copy'), {}), 404, 'PLAN_NOT_FOUND');
      expectError(await stranger.post(planPath(source.id, '/copy'), {}), 404, 'PLAN_NOT_FOUND');
    });
  });

  describe('the staged draft', () => {
    it('GET is 404 STAGED_DRAFT_NOT_FOUND when nothing is staged (after a publish), 404 PLAN_NOT_FOUND for an unknown plan', async () => {
      const { plan } = await livePlan(api);
      expectError(await api.get(planPath(plan.id, '/draft')), 404, 'STAGED_DRAFT_NOT_FOUND');
      expectError(await api.delete(planPath(plan.id, '/draft')), 404, 'STAGED_DRAFT_NOT_FOUND');
      expectError(await api.get(planPath(randomUUID(), '/draft')), 404, 'PLAN_NOT_FOUND');
      expectError(await stranger.get(planPath(plan.id, '/draft')), 404, 'PLAN_NOT_FOUND');
    });

    it('opens on the live head (same base again: unchanged), re-bases an edit-free draft onto a release, refuses a draft holding edits (409) and a base that is neither (409)', async () => {
      const { plan } = await livePlan(api);
      const opened = await must(api.post(planPath(plan.id, '/draft'), {}), 200);
      expect(opened.body).toMatchObject({
        status: 'draft',
        version: 2,
        base_version: 1,
        head_version: 1,
        base_version_id: plan.live_version.id,
      });
      expect(opened.body.summary).toEqual({
        fields_changed: [],
        products_added: [],
        products_removed: [],
        memberships_changed: [],
      });
      const again = await must(api.post(planPath(plan.id, '/draft'), {}), 200);
      expect(again.body.id).toBe(opened.body.id);
      // A release to base on.
      await must(api.patch(planPath(plan.id), { price_cadence_unit: 'year' }), 200);
      await publishPlan(api, plan.id, { scheduled_for: '2099-01-01T00:00:00Z' });
      const release = (await api.get(planPath(plan.id, '/versions?status=scheduled'))).body.data[0];
      expect(release).toMatchObject({
        version: 2,
        rank: 1,
        scheduled_for: '2099-01-01T00:00:00.000Z',
        scheduled_change_id: expect.any(String),
      });
      const fresh = await must(api.post(planPath(plan.id, '/draft'), {}), 200);
      expect(fresh.body).toMatchObject({ version: 3, base_version: 1 });
      const rebased = await must(api.post(planPath(plan.id, '/draft'), { base_version_id: release.id }), 200);
      expect(rebased.body).toMatchObject({ id: fresh.body.id, base_version: 2, price_cadence_unit: 'year' });
      await must(api.patch(planPath(plan.id), { price_cadence_unit: 'week' }), 200);
      const refused = expectError(
        await api.post(planPath(plan.id, '/draft'), { base_version_id: plan.live_version.id }),
        409,
        'DRAFT_HAS_STAGED_EDITS',
      );
      expect(refused.param).toBe('base_version_id');
      // Bases: the head and scheduled rows only.
      await must(api.delete(planPath(plan.id, '/draft')), 204);
      const discarded = (await api.get(planPath(plan.id, '/versions?archived_reason=discarded'))).body.data[0];
      expectError(await api.post(planPath(plan.id, '/draft'), { base_version_id: discarded.id }), 409, 'INVALID_BASE_VERSION');
      expectError(await api.post(planPath(plan.id, '/draft'), { base_version_id: randomUUID() }), 404, 'VERSION_NOT_FOUND');
      expectError(await api.post(planPath(plan.id, '/draft'), { base_version_id: 'v1' }), 400, 'VALIDATION_ERROR');
      const foreignVersion = (await livePlan(stranger)).plan.live_version.id;
      expectError(await api.post(planPath(plan.id, '/draft'), { base_version_id: foreignVersion }), 404, 'VERSION_NOT_FOUND');
    });

    it('discards: 204, the live plan untouched, the number used up; discarding again is 404', async () => {
      const { plan } = await livePlan(api);
      await must(api.patch(planPath(plan.id), { price_cadence_unit: 'year' }), 200);
      await must(api.delete(planPath(plan.id, '/draft')), 204);
      expectError(await api.delete(planPath(plan.id, '/draft')), 404, 'STAGED_DRAFT_NOT_FOUND');
      expect(await read(plan.id)).toMatchObject({
        price_cadence_unit: 'month',
        version: 1,
        draft_version: null,
        status: 'active',
      });
      const next = await must(api.post(planPath(plan.id, '/draft'), {}), 200);
      expect(next.body.version).toBe(3);
    });
  });

  describe('memberships (spec 2.6, model §5)', () => {
    let product: any;
    beforeAll(async () => {
      product = await api.liveProduct('9');
    });

    it('adds with defaults (band 1/1/∞, no allowance, latest) and returns the plan; the membership reaches subscribers at the next publish', async () => {
      const plan = await createPlan(api);
      const added = await must(api.post(planPath(plan.id, '/products'), { product_id: product.id }), 201);
      expect(added.body.products).toEqual([
        {
          product_id: product.id,
          product_version_id: null,
          product_version: null,
          product_track_mode: 'latest',
          pinned_product_version_id: null,
          allowance_kind: null,
          min_quantity: 1,
          default_quantity: 1,
          max_quantity: null,
          included_quantity: null,
          refresh_count: null,
          refresh_unit: null,
          rollover_enabled: false,
          rollover_expiry_periods: null,
          rollover_max: null,
          unit_limit: null,
        },
      ]);
      await publishPlan(api, plan.id);
      expect((await read(plan.id)).products[0]).toMatchObject({
        product_version_id: product.live_version.id,
        product_version: 1,
      });
    });

    it('reads the kinds: REFRESHING with a unit (count defaults to 1), POOL without one (unit_limit caps it), none without an included quantity', async () => {
      const plan = await createPlan(api);
      const a = await api.liveProduct('1');
      const b = await api.liveProduct('1');
      await addMembership(api, plan.id, a.id, {
        included_quantity: '1000',
        refresh_unit: 'billing_cycle',
        rollover_enabled: true,
        rollover_max: '0',
        rollover_expiry_periods: 2,
      });
      const pooled = await addMembership(api, plan.id, b.id, {
        included_quantity: '100',
        unit_limit: '250',
        min_quantity: 0,
        default_quantity: 0,
        max_quantity: 1,
      });
      expect(pooled.products).toEqual([
        expect.objectContaining({
          product_id: a.id,
          allowance_kind: 'REFRESHING',
          refresh_count: 1,
          refresh_unit: 'billing_cycle',
          rollover_enabled: true,
          rollover_max: '0',
          rollover_expiry_periods: 2,
        }),
        expect.objectContaining({
          product_id: b.id,
          allowance_kind: 'POOL',
          unit_limit: '250',
          min_quantity: 0,
          default_quantity: 0,
          max_quantity: 1,
        }),
      ]);
    });

    it('refuses a body inconsistent on its own with 400 VALIDATION_ERROR (errors[] name the field and the rule)', async () => {
      const plan = await createPlan(api);
      const cases: Array<[object, string, string]> = [
        [{ refresh_count: 2 }, 'refresh_count', 'MUTUALLY_EXCLUSIVE'],
        [{ included_quantity: '5', refresh_unit: 'never' }, 'refresh_unit', 'INVALID_VALUE'],
        [{ included_quantity: '5', refresh_unit: 'fortnight' }, 'refresh_unit', 'INVALID_VALUE'],
        [{ refresh_unit: 'month' }, 'refresh_unit', 'MUTUALLY_EXCLUSIVE'],
        [{ rollover_enabled: true }, 'rollover_enabled', 'MUTUALLY_EXCLUSIVE'],
        [{ included_quantity: '5', rollover_max: '1' }, 'rollover_max', 'MUTUALLY_EXCLUSIVE'],
        [{ included_quantity: '5', rollover_expiry_periods: 1 }, 'rollover_expiry_periods', 'MUTUALLY_EXCLUSIVE'],
        [{ included_quantity: '5', refresh_unit: 'month', unit_limit: '10' }, 'unit_limit', 'MUTUALLY_EXCLUSIVE'],
        [{ included_quantity: '50', unit_limit: '10' }, 'unit_limit', 'OUT_OF_RANGE'],
        [{ included_quantity: '5', unit_limit: '0' }, 'unit_limit', 'OUT_OF_RANGE'],
        [{ min_quantity: 3, default_quantity: 2 }, 'default_quantity', 'OUT_OF_RANGE'],
        [{ default_quantity: 5, max_quantity: 4 }, 'max_quantity', 'OUT_OF_RANGE'],
        [{ max_quantity: 0 }, 'max_quantity', 'OUT_OF_RANGE'],
        [{ min_quantity: -1 }, 'min_quantity', 'OUT_OF_RANGE'],
        [{ min_quantity: 1.5 }, 'min_quantity', 'INVALID_VALUE'],
        [{ included_quantity: '-1' }, 'included_quantity', 'INVALID_VALUE'],
        [{ included_quantity: 'lots' }, 'included_quantity', 'INVALID_VALUE'],
        [{ included_quantity: '5', refresh_unit: 'day', refresh_count: 0 }, 'refresh_count', 'OUT_OF_RANGE'],
        [{ included_quantity: '5', refresh_unit: 'day', refresh_count: 1001 }, 'refresh_count', 'OUT_OF_RANGE'],
        [{ rollover_enabled: 'yes' }, 'rollover_enabled', 'INVALID_VALUE'],
      ];
      for (const [terms, param, code] of cases) {
        const refused = expectError(
          await api.post(planPath(plan.id, '/products'), { product_id: product.id, ...terms }),
          400,
          'VALIDATION_ERROR',
        );
        expect({ terms, errors: refused.errors }).toEqual({
          terms,
          errors: expect.arrayContaining([expect.objectContaining({ param, code })]),
        });
      }
      expectError(await api.post(planPath(plan.id, '/products'), {}), 400, 'VALIDATION_ERROR');
      expectError(await api.post(planPath(plan.id, '/products'), { product_id: 'seats' }), 400, 'VALIDATION_ERROR');
      expectError(
        await api.post(planPath(plan.id, '/products'), { product_id: product.id, product_track_mode: 'sometimes' }),
        400,
        'VALIDATION_ERROR',
      );
      expect((await read(plan.id)).products).toEqual([]);
    });

    it('refuses an unknown or foreign product (404), one already on the plan (409 ALREADY_EXISTS), an archived one (409 ENTITY_ARCHIVED)', async () => {
      const plan = await createPlan(api);
      expectError(await api.post(planPath(plan.id, '/products'), { product_id: randomUUID() }), 404, 'PRODUCT_NOT_FOUND');
      const foreign = await stranger.liveProduct('1');
      expectError(await api.post(planPath(plan.id, '/products'), { product_id: foreign.id }), 404, 'PRODUCT_NOT_FOUND');
      await addMembership(api, plan.id, product.id);
      expectError(await api.post(planPath(plan.id, '/products'), { product_id: product.id }), 409, 'ALREADY_EXISTS');
      const retired = await api.liveProduct('1');
      await must(api.patch(`/v1/products/${retired.id}`, { status: 'archived' }), 200);
      expectError(await api.post(planPath(plan.id, '/products'), { product_id: retired.id }), 409, 'ENTITY_ARCHIVED');
      expectError(await api.post(planPath(randomUUID(), '/products'), { product_id: product.id }), 404, 'PLAN_NOT_FOUND');
      expectError(await stranger.post(planPath(plan.id, '/products'), { product_id: foreign.id }), 404, 'PLAN_NOT_FOUND');
    });

    it('updates: quantity_band_set / allowance_set true rewrite the group, false keep it (format still checked), omitted merge; product_id is not updatable', async () => {
      const plan = await createPlan(api);
      await addMembership(api, plan.id, product.id, {
        min_quantity: 2,
        default_quantity: 3,
        max_quantity: 10,
        included_quantity: '100',
        refresh_unit: 'month',
        rollover_enabled: true,
      });
      const path = planPath(plan.id, `/products/${product.id}`);
      const membership = async (body: object) => (await must(api.patch(path, body), 200)).body.products[0];
      expect(await membership({ max_quantity: 20 })).toMatchObject({ min_quantity: 2, default_quantity: 3, max_quantity: 20 });
      expect(await membership({ quantity_band_set: true, max_quantity: 5 })).toMatchObject({
        min_quantity: 1,
        default_quantity: 1,
        max_quantity: 5,
      });
      expect(await membership({ quantity_band_set: false, max_quantity: 99, min_quantity: 0 })).toMatchObject({
        min_quantity: 1,
        default_quantity: 1,
        max_quantity: 5,
      });
      expectError(await api.patch(path, { quantity_band_set: false, min_quantity: 'many' }), 400, 'VALIDATION_ERROR');
      expect(await membership({ rollover_max: '30' })).toMatchObject({
        included_quantity: '100',
        refresh_unit: 'month',
        rollover_enabled: true,
        rollover_max: '30',
      });
      expect(await membership({ allowance_set: false, included_quantity: '1' })).toMatchObject({
        included_quantity: '100',
        rollover_max: '30',
      });
      expect(await membership({ allowance_set: true, included_quantity: '40' })).toMatchObject({
        included_quantity: '40',
        refresh_unit: null,
        refresh_count: null,
        rollover_enabled: false,
        rollover_max: null,
        allowance_kind: 'POOL',
      });
      // never (granted once) is an update-only unit; unit_limit is then a lifetime cap.
      expect(await membership({ refresh_unit: 'never', unit_limit: '400' })).toMatchObject({
        refresh_unit: 'never',
        refresh_count: null,
        unit_limit: '400',
        allowance_kind: 'POOL',
      });
      expect(await membership({ allowance_set: true })).toMatchObject({ included_quantity: null, allowance_kind: null });
      expectError(await api.patch(path, { product_id: randomUUID() }), 400, 'VALIDATION_ERROR');
      expectError(await api.patch(path, { quantity_band_set: 'yes' }), 400, 'VALIDATION_ERROR');
    });

    it('tells 400 (the body contradicts itself) from 422 INVALID_MEMBERSHIP (a consistent body whose merge with the stored terms breaks a rule)', async () => {
      const plan = await createPlan(api);
      await addMembership(api, plan.id, product.id, { max_quantity: 5 });
      const path = planPath(plan.id, `/products/${product.id}`);
      expectError(await api.patch(path, { refresh_count: 2, refresh_unit: null }), 400, 'VALIDATION_ERROR');
      expectError(await api.patch(path, { min_quantity: 4, default_quantity: 3 }), 400, 'VALIDATION_ERROR');
      const merged = expectError(await api.patch(path, { min_quantity: 6 }), 422, 'INVALID_MEMBERSHIP');
      expect(merged.errors).toEqual(expect.arrayContaining([expect.objectContaining({ param: 'max_quantity' })]));
      expectError(await api.patch(path, { refresh_unit: 'month' }), 422, 'INVALID_MEMBERSHIP');
      expectError(await api.patch(path, { rollover_enabled: true }), 422, 'INVALID_MEMBERSHIP');
      expect((await read(plan.id)).products[0]).toMatchObject({ min_quantity: 1, max_quantity: 5, refresh_unit: null });
    });

    it('applies product_track_mode at once on the live tracking row (no draft, no version); terms stage in the draft', async () => {
      const { plan, product: member } = await livePlan(api);
      const path = planPath(plan.id, `/products/${member.id}`);
      const pinned = await must(api.patch(path, { product_track_mode: 'pinned' }), 200);
      expect(pinned.body).toMatchObject({ draft_version: null, version: 1 });
      expect(pinned.body.products[0]).toMatchObject({
        product_track_mode: 'pinned',
        pinned_product_version_id: null,
        product_version_id: member.live_version.id,
      });
      expect((await api.get(planPath(plan.id, '/versions/1'))).body.products[0].product_track_mode).toBe('latest');
      const staged = await must(api.patch(path, { max_quantity: 7 }), 200);
      expect(staged.body).toMatchObject({ draft_version: { version: 2 } });
      expect((await api.get(planPath(plan.id, '/draft'))).body.summary.memberships_changed).toEqual([member.id]);
      expect((await api.get(planPath(plan.id, '/versions/1'))).body.products[0].max_quantity).toBeNull();
    });

    it('removes: 204, a live membership’s removal is staged (published versions keep it), removing again is 404 PRODUCT_NOT_ON_PLAN', async () => {
      const { plan, product: member } = await livePlan(api);
      const path = planPath(plan.id, `/products/${member.id}`);
      await must(api.delete(path), 204);
      expect((await read(plan.id)).products).toEqual([]);
      expect((await api.get(planPath(plan.id, '/draft'))).body.summary.products_removed).toEqual([member.id]);
      expect((await api.get(planPath(plan.id, '/versions/1'))).body.products).toEqual([
        expect.objectContaining({ product_id: member.id }),
      ]);
      expectError(await api.delete(path), 404, 'PRODUCT_NOT_ON_PLAN');
      expectError(await api.patch(path, { max_quantity: 2 }), 404, 'PRODUCT_NOT_ON_PLAN');
      expectError(await api.delete(planPath(plan.id, `/products/${randomUUID()}`)), 404, 'PRODUCT_NOT_ON_PLAN');
      expectError(await api.delete(planPath(plan.id, '/products/not-a-uuid')), 404, 'PRODUCT_NOT_ON_PLAN');
      expectError(await stranger.delete(planPath(plan.id, `/products/${member.id}`)), 404, 'PLAN_NOT_FOUND');
      // A membership only staged (never published) is simply dropped.
      const extra = await api.liveProduct('1');
      await addMembership(api, plan.id, extra.id);
      await must(api.delete(planPath(plan.id, `/products/${extra.id}`)), 204);
      expect((await api.get(planPath(plan.id, '/draft'))).body.summary).toMatchObject({
        products_added: [],
        products_removed: [member.id],
      });
    });
  });

  describe('versions', () => {
    let plan: any;
    beforeAll(async () => {
      ({ plan } = await livePlan(api));
      for (const cadence of ['year', 'week']) {
        await must(api.patch(planPath(plan.id), { price_cadence_unit: cadence }), 200);
        await publishPlan(api, plan.id);
      }
      await must(api.patch(planPath(plan.id), { price_cadence_unit: 'month' }), 200);
      await publishPlan(api, plan.id, { scheduled_for: '2099-01-01T00:00:00Z' });
      await must(api.patch(planPath(plan.id), { price_cadence_unit: 'year' }), 200);
      await must(api.delete(planPath(plan.id, '/draft')), 204);
      await must(api.patch(planPath(plan.id), { price_cadence_unit: 'month' }), 200);
    });

    it('lists newest number first without the draft by default; filters by status (comma or repeated) and archived_reason; pages by cursor', async () => {
      const all = (await must(api.get(planPath(plan.id, '/versions')), 200)).body;
      expect(all.data.map((row: any) => [row.version, row.status, row.archived_reason])).toEqual([
        [5, 'archived', 'discarded'],
        [4, 'scheduled', null],
        [3, 'published', null],
        [2, 'archived', 'superseded'],
        [1, 'archived', 'superseded'],
      ]);
      expect(all.pagination).toEqual({ cursor: null, has_more: false });
      const drafts = (await api.get(planPath(plan.id, '/versions?status=draft,scheduled'))).body.data;
      expect(drafts.map((row: any) => row.version)).toEqual([6, 4]);
      const repeated = (await api.get(planPath(plan.id, '/versions?status=published&status=draft'))).body.data;
      expect(repeated.map((row: any) => row.version)).toEqual([6, 3]);
      const superseded = (await api.get(planPath(plan.id, '/versions?archived_reason=superseded'))).body.data;
      expect(superseded.map((row: any) => row.version)).toEqual([2, 1]);
      const first = (await api.get(planPath(plan.id, '/versions?limit=2'))).body;
      expect(first.data.map((row: any) => row.version)).toEqual([5, 4]);
      const second = (await api.get(planPath(plan.id, `/versions?limit=2&cursor=${first.pagination.cursor}`))).body;
      expect(second.data.map((row: any) => row.version)).toEqual([3, 2]);
      expectError(
        await api.get(planPath(plan.id, `/versions?limit=2&status=published&cursor=${first.pagination.cursor}`)),
        400,
        'INVALID_CURSOR',
      );
      expectError(await api.get(planPath(plan.id, '/versions?status=live')), 400, 'VALIDATION_ERROR');
      for (const empty of ['', ',', ' , '])
        expectError(await api.get(planPath(plan.id, `/versions?status=${encodeURIComponent(empty)}`)), 400, 'VALIDATION_ERROR');
      expectError(await api.get(planPath(plan.id, '/versions?archived_reason=expired')), 400, 'VALIDATION_ERROR');
      expectError(await api.get(planPath(plan.id, '/versions?include=everything')), 400, 'VALIDATION_ERROR');
      expectError(await stranger.get(planPath(plan.id, '/versions')), 404, 'PLAN_NOT_FOUND');
    });

    it('adds usage_count on request: subscriptions on the version and changes naming it', async () => {
      const v3 = (await api.get(planPath(plan.id, '/versions/3'))).body;
      await insertSubscriptions(t, tenant, api, [
        { planId: plan.id, planVersionId: v3.id },
        { planId: plan.id, planVersionId: v3.id, status: 'canceled' },
      ]);
      const rows = (await api.get(planPath(plan.id, '/versions?include=usage_count'))).body.data;
      expect(rows.map((row: any) => [row.version, row.usage_count])).toEqual([
        [5, 0],
        [4, 1],
        [3, 3],
        [2, 1],
        [1, 1],
      ]);
      expect((await api.get(planPath(plan.id, '/versions'))).body.data[0].usage_count).toBeUndefined();
    });

    it('reads a snapshot: the version’s frozen fields and memberships, each resolved to a product version, with its lifecycle', async () => {
      await must(api.patch(planPath(plan.id), { name: 'Renamed later' }), 200);
      const v1 = (await must(api.get(planPath(plan.id, '/versions/1')), 200)).body;
      expect(v1).toMatchObject({
        object: 'plan_version',
        plan_id: plan.id,
        version: 1,
        name: 'Growth',
        price_cadence_unit: 'month',
        status: 'archived',
        archived_reason: 'superseded',
        origin: 'manual',
        effective_from: expect.stringMatching(ISO),
        effective_to: expect.stringMatching(ISO),
        change_id: expect.any(String),
        rank: null,
        error: null,
      });
      expect(v1.products).toEqual([
        expect.objectContaining({ product_version_id: expect.any(String), product_version: 1, product_track_mode: 'latest' }),
      ]);
      const scheduled = (await api.get(planPath(plan.id, '/versions/4'))).body;
      expect(scheduled).toMatchObject({
        status: 'scheduled',
        origin: 'scheduled_release',
        rank: 1,
        scheduled_for: '2099-01-01T00:00:00.000Z',
      });
      expect(scheduled.scheduled_change_id).toBe(scheduled.change_id);
      expectError(await api.get(planPath(plan.id, '/versions/99')), 404, 'VERSION_NOT_FOUND');
      for (const version of ['0', '-2', 'one', '1.5', '1e2', '0x3', '99999999999', '2147483648']) {
        expect({
          version,
          param: expectError(await api.get(planPath(plan.id, `/versions/${version}`)), 400, 'VALIDATION_ERROR').param,
        }).toEqual({ version, param: 'version' });
        expect({
          version,
          param: expectError(
            await api.patch(planPath(plan.id, `/versions/${version}`), { release_name: 'x' }),
            400,
            'VALIDATION_ERROR',
          ).param,
        }).toEqual({
          version,
          param: 'version',
        });
      }
      expectError(await stranger.get(planPath(plan.id, '/versions/1')), 404, 'PLAN_NOT_FOUND');
    });

    it('annotates any row: "" clears, absent leaves, no version is created', async () => {
      const count = async () =>
        (await api.get(planPath(plan.id, '/versions?status=draft,scheduled,published,archived'))).body.data.length;
      const before = await count();
      const named = await must(
        api.patch(planPath(plan.id, '/versions/3'), { release_name: '2027 list', release_note: 'Seats include API calls.' }),
        200,
      );
      expect(named.body).toMatchObject({
        version: 3,
        status: 'published',
        release_name: '2027 list',
        release_note: 'Seats include API calls.',
      });
      const noteOnly = await must(api.patch(planPath(plan.id, '/versions/3'), { release_note: '' }), 200);
      expect(noteOnly.body).toMatchObject({ release_name: '2027 list', release_note: null });
      await must(api.patch(planPath(plan.id, '/versions/1'), { release_name: 'launch' }), 200);
      expect(await count()).toBe(before);
      expectError(await api.patch(planPath(plan.id, '/versions/99'), { release_name: 'x' }), 404, 'VERSION_NOT_FOUND');
      expectError(await api.patch(planPath(plan.id, '/versions/0'), { release_name: 'x' }), 400, 'VALIDATION_ERROR');
      expectError(await api.patch(planPath(plan.id, '/versions/3'), { release_name: 5 }), 400, 'VALIDATION_ERROR');
      expectError(await api.patch(planPath(plan.id, '/versions/3'), { status: 'published' }), 400, 'VALIDATION_ERROR');
      expectError(await stranger.patch(planPath(plan.id, '/versions/3'), { release_name: 'Hijacked' }), 404, 'PLAN_NOT_FOUND');
      expect((await api.get(planPath(plan.id, '/versions/3'))).body.release_name).toBe('2027 list');
    });
  });

  describe('publishing plans through changes', () => {
    it('publishes now (change applied, plan active, memberships resolved) and schedules (pending, ranked; the plan keeps its status)', async () => {
      const product = await api.liveProduct('3');
      const plan = await createPlan(api);
      await addMembership(api, plan.id, product.id);
      const release = await publishPlan(api, plan.id, { scheduled_for: '2099-01-01T00:00:00Z', release_name: 'later' });
      expect(release).toMatchObject({ status: 'pending', subject_kind: 'plan', subject_id: plan.id, rank: 1 });
      expect(await read(plan.id)).toMatchObject({
        status: 'draft',
        live_version: null,
        draft_version: null,
        has_scheduled_version: true,
        next_release_at: '2099-01-01T00:00:00.000Z',
      });
      await must(
        api.post(planPath(plan.id, '/draft'), { base_version_id: (await api.get(planPath(plan.id, '/versions/1'))).body.id }),
        200,
      );
      await must(api.patch(planPath(plan.id, `/products/${product.id}`), { max_quantity: 3 }), 200);
      expectError(await api.post('/v1/changes', await planChangeBody(api, plan.id)), 409, 'PUBLISH_BEFORE_BASE_RELEASE');
      await must(api.post(`/v1/changes/${release.id}/cancel`, {}), 200);
      const applied = await publishPlan(api, plan.id, { release_name: 'now' });
      expect(applied).toMatchObject({ status: 'applied', result: { version: 2 } });
      expect(await read(plan.id)).toMatchObject({
        status: 'active',
        version: 2,
        published_at: expect.stringMatching(ISO),
        has_scheduled_version: false,
      });
      expect((await api.get(planPath(plan.id, '/versions/2'))).body).toMatchObject({
        release_name: 'now',
        origin: 'manual',
        status: 'published',
      });
      expectError(
        await api.post('/v1/changes', {
          operation: 'catalog.publish_version',
          subject_kind: 'plan',
          subject_id: plan.id,
          staged_version_id: applied.result.id,
        }),
        409,
        'PUBLISH_NOT_WORKING_DRAFT',
      );
    });

    it('applies pins: the membership resolves to the pinned version and its tracking becomes pinned; a pin outside the draft or of a never-live version is 422 INVALID_PIN', async () => {
      const product = await api.liveProduct('1');
      const firstVersion = product.live_version.id;
      await must(api.patch(`/v1/products/${product.id}`, { price_expression: '2' }), 200);
      await api.publish(product.id);
      const plan = await createPlan(api);
      await addMembership(api, plan.id, product.id);
      const outsider = await api.liveProduct('1');
      expectError(
        await api.post(
          '/v1/changes',
          await planChangeBody(api, plan.id, {
            pins: [{ product_id: outsider.id, product_version_id: outsider.live_version.id }],
          }),
        ),
        422,
        'INVALID_PIN',
      );
      const productDraft = (await must(api.patch(`/v1/products/${product.id}`, { price_expression: '3' }), 200)).body
        .draft_version.id;
      expectError(
        await api.post(
          '/v1/changes',
          await planChangeBody(api, plan.id, { pins: [{ product_id: product.id, product_version_id: productDraft }] }),
        ),
        422,
        'INVALID_PIN',
      );
      const foreignVersion = (await stranger.liveProduct('1')).live_version.id;
      expectError(
        await api.post(
          '/v1/changes',
          await planChangeBody(api, plan.id, { pins: [{ product_id: product.id, product_version_id: foreignVersion }] }),
        ),
        422,
        'INVALID_PIN',
      );
      await publishPlan(api, plan.id, { pins: [{ product_id: product.id, product_version_id: firstVersion }] });
      expect((await read(plan.id)).products[0]).toMatchObject({
        product_track_mode: 'pinned',
        pinned_product_version_id: firstVersion,
        product_version_id: firstVersion,
        product_version: 1,
      });
    });

    it('refuses PUBLISH_DEPENDENCY_UNPUBLISHED, PUBLISH_CADENCE_MISMATCH (an ACTIVE latest-tracking subscriber on another cadence) and PUBLISH_NOTHING_STAGED; nothing goes live', async () => {
      const unpublished = (await must(api.post('/v1/products', { name: 'Draft only', price_expression: '1' }), 201)).body;
      const plan = await createPlan(api);
      await addMembership(api, plan.id, unpublished.id);
      const refused = expectError(
        await api.post('/v1/changes', await planChangeBody(api, plan.id)),
        409,
        'PUBLISH_DEPENDENCY_UNPUBLISHED',
      );
      expect(refused.details).toEqual({ product_id: unpublished.id });
      expect(await read(plan.id)).toMatchObject({ status: 'draft', live_version: null });

      const { plan: live } = await livePlan(api);
      const [pinnedSub] = await insertSubscriptions(t, tenant, api, [
        { planId: live.id, planVersionId: live.live_version.id, planTrackMode: 'pinned', billingCadence: 'year' },
        {
          planId: live.id,
          planVersionId: live.live_version.id,
          planTrackMode: 'latest',
          billingCadence: 'month',
          status: 'canceled',
        },
      ]);
      expect(pinnedSub).toEqual(expect.any(String));
      await must(api.patch(planPath(live.id), { price_cadence_unit: 'year' }), 200);
      // Pinned and canceled subscribers on another cadence do not block the publish...
      expect((await api.get(planPath(live.id, '/publish_check'))).body).toMatchObject({ ok: true });
      const [latest] = await insertSubscriptions(t, tenant, api, [
        { planId: live.id, planVersionId: live.live_version.id, planTrackMode: 'latest', billingCadence: 'month' },
      ]);
      // ...an ACTIVE one tracking latest does.
      const mismatch = expectError(
        await api.post('/v1/changes', await planChangeBody(api, live.id)),
        409,
        'PUBLISH_CADENCE_MISMATCH',
      );
      expect(mismatch.details).toMatchObject({ subscription_id: latest, billing_cadence: 'month', price_cadence_unit: 'year' });
      expect((await read(live.id)).version).toBe(1);
      await must(api.delete(planPath(live.id, '/draft')), 204);
      await must(api.post(planPath(live.id, '/draft'), {}), 200);
      expectError(await api.post('/v1/changes', await planChangeBody(api, live.id)), 409, 'PUBLISH_NOTHING_STAGED');
    });

    it('refuses PUBLISH_INVALID_ALLOWANCE when a staged membership breaks a rule at go-live (a row predating the rule)', async () => {
      const product = await api.liveProduct('1');
      const plan = await createPlan(api);
      await addMembership(api, plan.id, product.id, { min_quantity: 2, default_quantity: 2 });
      const db = t.app.get(DataSource);
      // Simulate terms written before a rule existed: lift the check that holds it, then break it.
      const [constraint] = await db.query(
        `SELECT conname FROM pg_constraint WHERE conrelid = 'plan_version_products'::regclass AND pg_get_constraintdef(oid) LIKE '%default_quantity >= min_quantity%'`,
      );
      await db.query(`ALTER TABLE plan_version_products DROP CONSTRAINT ${constraint.conname}`);
      try {
        await db.query(`UPDATE plan_version_products SET default_quantity = 1 WHERE plan_version_id = $1`, [
          plan.draft_version.id,
        ]);
        const refused = expectError(
          await api.post('/v1/changes', await planChangeBody(api, plan.id)),
          409,
          'PUBLISH_INVALID_ALLOWANCE',
        );
        expect(refused.details).toMatchObject({ product_id: product.id, rule: 'default_quantity' });
        expect((await api.get(planPath(plan.id, '/publish_check'))).body).toMatchObject({
          ok: false,
          code: 'PUBLISH_INVALID_ALLOWANCE',
        });
      } finally {
        await db.query(`DELETE FROM plan_version_products WHERE plan_version_id = $1`, [plan.draft_version.id]);
        await db.query(
          `ALTER TABLE plan_version_products ADD CONSTRAINT ${constraint.conname} CHECK (min_quantity >= 0 AND default_quantity >= min_quantity AND (max_quantity IS NULL OR max_quantity >= greatest(default_quantity, 1)))`,
        );
      }
    });

    it('keeps tenants apart: another organization, the sandbox, and foreign product ids all meet 404s, and nothing of the plan changes', async () => {
      const { plan, product } = await livePlan(api);
      await must(api.patch(planPath(plan.id), { price_cadence_unit: 'year' }), 200);
      const body = await planChangeBody(api, plan.id);
      expectError(await stranger.post('/v1/changes', body), 404, 'PLAN_NOT_FOUND');
      expectError(await sandbox.post('/v1/changes', body), 404, 'PLAN_NOT_FOUND');
      for (const client of [stranger, sandbox]) {
        expectError(await client.post(planPath(plan.id, '/draft'), {}), 404, 'PLAN_NOT_FOUND');
        expectError(await client.delete(planPath(plan.id, '/draft')), 404, 'PLAN_NOT_FOUND');
        expectError(await client.patch(planPath(plan.id, `/products/${product.id}`), { max_quantity: 1 }), 404, 'PLAN_NOT_FOUND');
        expectError(await client.delete(planPath(plan.id)), 404, 'PLAN_NOT_FOUND');
        expectError(await client.patch(planPath(plan.id, '/versions/1'), { release_name: 'x' }), 404, 'PLAN_NOT_FOUND');
        const list = await client.post('/v1/plans/republish', { plan_ids: [plan.id] });
        expect(list.body.data).toEqual([
          expect.objectContaining({
            plan_id: plan.id,
            status: 'failed',
            error: expect.objectContaining({ code: 'PLAN_NOT_FOUND' }),
          }),
        ]);
      }
      const sandboxPlan = await createPlan(sandbox);
      expectError(
        await sandbox.post(planPath(sandboxPlan.id, '/products'), { product_id: product.id }),
        404,
        'PRODUCT_NOT_FOUND',
      );
      expect(await read(plan.id)).toMatchObject({ version: 1, price_cadence_unit: 'year', name: 'Growth' });
    });
  });
});

import { FIRE_PRODUCT_RELEASE_JOB, ProductReleases } from '@app/catalog';
import { JobQueue, ManualClock } from '@app/shared-kernel';
import { DataSource } from 'typeorm';
import { expectError, expectFieldError } from '../support/auth-helpers';
import { CatalogClient, changeBody, drainCascades, productOf, scheduleDraft, versionsOf } from '../support/catalog-helpers';
import { UUID } from '../support/expectations';
import { createTenant, TestTenant } from '../support/tenants';
import { createTestApp, TestApp } from '../support/test-app';

jest.setTimeout(120_000);

const HOUR = 3_600_000;

/**
 * Changes over HTTP (model §2.2–§2.7): publish now, schedule, cancel, every publish refusal in
 * its order, the queue's ranks, firing at exactly scheduled_for (by the job and by catch-up,
 * once), and the version line's numbers. The app runs on a ManualClock set after the real
 * date, so no queued job fires by itself: the tests move the clock and run the release job.
 */
describe('Catalog changes and the version line', () => {
  const clock = new ManualClock(new Date('2027-08-01T08:00:00.000Z'));
  let t: TestApp;
  let tenant: TestTenant;
  let api: CatalogClient;
  let db: DataSource;

  beforeAll(async () => {
    t = await createTestApp({ clock });
    db = t.app.get(DataSource);
    tenant = await createTenant(t);
    api = new CatalogClient(t, tenant.auth);
  });
  afterAll(() => t.close());

  const later = (ms: number) => new Date(clock.now().getTime() + ms);

  async function stage(productId: string, expression: string): Promise<any> {
    const response = await api.patch(`/v1/products/${productId}`, { price_expression: expression });
    expect(response.status).toBe(200);
    return response.body.draft_version;
  }

  function fire(productId: string, changeId: string): Promise<void> {
    return t.app
      .get(ProductReleases)
      .fire({ organizationId: tenant.organization_id, workspaceId: tenant.liveWorkspaceId, productId, changeId });
  }

  async function change(id: string): Promise<any> {
    const response = await api.get(`/v1/changes/${id}`);
    expect(response.status).toBe(200);
    return response.body;
  }

  describe('publish now', () => {
    it('applies the draft at once: 201, Location, the change with its result; GET reads it back', async () => {
      const product = await api.product({ name: 'Now', price_expression: '4' });
      const response = await api.post(
        '/v1/changes',
        changeBody(product.id, product.draft_version.id, { release_name: 'Launch', release_note: 'First price' }),
      );
      expect(response.status).toBe(201);
      expect(response.headers.location).toBe(`/v1/changes/${response.body.id}`);
      expect(response.body).toEqual({
        object: 'change',
        id: expect.stringMatching(UUID),
        operation: 'catalog.publish_version',
        subject_kind: 'product',
        subject_id: product.id,
        staged_version_id: product.draft_version.id,
        status: 'applied',
        scheduled_for: null,
        rank: null,
        pins: [],
        release_name: 'Launch',
        release_note: 'First price',
        result: { id: product.draft_version.id, version: 1 },
        error: null,
        created_by: { type: 'api_key', id: tenant.api_key.id },
        created_at: clock.now().toISOString(),
        applied_at: clock.now().toISOString(),
        canceled_at: null,
      });
      expect(await change(response.body.id)).toEqual(response.body);
      expect(await productOf(api, product.id)).toMatchObject({
        status: 'active',
        unit_price: '4',
        version: 1,
        live_version: { id: product.draft_version.id, version: 1 },
        draft_version: null,
        published_at: clock.now().toISOString(),
      });
    });

    it('refuses a bad body (400), pins on a product (400), unknown subjects and versions (404)', async () => {
      const product = await api.product({ name: 'Refusals', price_expression: '1' });
      const draft = product.draft_version.id;
      expectError(
        await api.post('/v1/changes', { ...changeBody(product.id, draft), operation: 'catalog.other' }),
        400,
        'VALIDATION_ERROR',
      );
      expectError(
        await api.post('/v1/changes', { ...changeBody(product.id, draft), subject_kind: 'cost' }),
        400,
        'VALIDATION_ERROR',
      );
      expectError(
        await api.post('/v1/changes', changeBody(product.id, draft, { scheduled_for: 'soon' })),
        400,
        'VALIDATION_ERROR',
      );
      expectError(await api.post('/v1/changes', changeBody(product.id, 'nope')), 400, 'VALIDATION_ERROR');
      expectFieldError(
        await api.post(
          '/v1/changes',
          changeBody(product.id, draft, { pins: [{ product_id: product.id, product_version_id: draft }] }),
        ),
        'pins',
        'INVALID_VALUE',
      );
      expectFieldError(await api.post('/v1/changes', changeBody(product.id, draft, { pins: [] })), 'pins', 'INVALID_VALUE');
      const unknown = '0193a5c2-7f4e-7b1a-9c1d-2f0e4b5a6d07';
      expect(expectError(await api.post('/v1/changes', changeBody(unknown, draft)), 404, 'PRODUCT_NOT_FOUND').param).toBe(
        'subject_id',
      );
      expect(expectError(await api.post('/v1/changes', changeBody(product.id, unknown)), 404, 'VERSION_NOT_FOUND').param).toBe(
        'staged_version_id',
      );
      // Another product's draft is not this product's version.
      const other = await api.product({ name: 'Other', price_expression: '2' });
      expectError(await api.post('/v1/changes', changeBody(product.id, other.draft_version.id)), 404, 'VERSION_NOT_FOUND');
      expectError(await api.get(`/v1/changes/${unknown}`), 404, 'CHANGE_NOT_FOUND');
      expectError(await api.get('/v1/changes/nope'), 404, 'CHANGE_NOT_FOUND');
      expectError(await api.post(`/v1/changes/${unknown}/cancel`), 404, 'CHANGE_NOT_FOUND');
      expect((await productOf(api, product.id)).status).toBe('draft');
      const [{ count }] = await db.query(`SELECT count(*)::int AS count FROM changes WHERE subject_id = $1`, [product.id]);
      expect(count).toBe(0);
    });

    it('refuses in the model’s order: PUBLISH_NOT_WORKING_DRAFT, PUBLISH_ENTITY_ARCHIVED, PUBLISH_NOTHING_STAGED', async () => {
      const product = await api.liveProduct('1');
      const notDraft = expectError(
        await api.post('/v1/changes', changeBody(product.id, product.live_version.id)),
        409,
        'PUBLISH_NOT_WORKING_DRAFT',
      );
      expect(notDraft.param).toBe('staged_version_id');
      // An edit-free draft stages nothing; nor does an edit reverted.
      const opened = (await api.post(`/v1/products/${product.id}/draft`)).body;
      expectError(await api.post('/v1/changes', changeBody(product.id, opened.id)), 409, 'PUBLISH_NOTHING_STAGED');
      await stage(product.id, '2');
      await stage(product.id, '1');
      expectError(await api.post('/v1/changes', changeBody(product.id, opened.id)), 409, 'PUBLISH_NOTHING_STAGED');
      await stage(product.id, '3');
      expect((await api.patch(`/v1/products/${product.id}`, { status: 'archived' })).status).toBe(200);
      expectError(await api.post('/v1/changes', changeBody(product.id, opened.id)), 409, 'PUBLISH_ENTITY_ARCHIVED');
      // A discarded draft is no longer the working draft.
      const other = await api.liveProduct('1');
      const discarded = await stage(other.id, '5');
      expect((await api.delete(`/v1/products/${other.id}/draft`)).status).toBe(204);
      expectError(await api.post('/v1/changes', changeBody(other.id, discarded.id)), 409, 'PUBLISH_NOT_WORKING_DRAFT');
      expect((await productOf(api, other.id)).unit_price).toBe('1');
    });

    it('refuses a formula that no longer resolves at go-live (409 PUBLISH_FORMULA_INVALID, details.reason and keys)', async () => {
      const vanishing = await api.orgCost('vanishing', { amount: '2' });
      const product = await api.product({ name: 'Formula', price_expression: 'vanishing * 3' });
      expect((await api.delete(`/v1/costs/${vanishing.id}`)).status).toBe(204);
      const refused = expectError(
        await api.post('/v1/changes', changeBody(product.id, product.draft_version.id)),
        409,
        'PUBLISH_FORMULA_INVALID',
      );
      expect(refused.details).toEqual({ reason: 'unknown_key', keys: ['vanishing'] });
      expect((await productOf(api, product.id)).status).toBe('draft');
    });

    it('refuses a draft whose staged cost value takes effect later (409 PUBLISH_BEFORE_COST_EFFECTIVE); schedules it at not_before', async () => {
      const product = await api.product({ name: 'Not before' });
      const cost = await api.productCost(product.id, 'nb', { amount: '1' });
      await stage(product.id, 'nb');
      await api.publish(product.id);
      const at = later(2 * HOUR);
      expect((await api.patch(`/v1/costs/${cost.id}`, { amount: '2', effective_at: at.toISOString() })).status).toBe(200);
      const draft = (await productOf(api, product.id)).draft_version.id;
      const refused = expectError(
        await api.post('/v1/changes', changeBody(product.id, draft)),
        409,
        'PUBLISH_BEFORE_COST_EFFECTIVE',
      );
      expect(refused.details).toEqual({ not_before: at.toISOString() });
      const early = expectError(
        await api.post('/v1/changes', changeBody(product.id, draft, { scheduled_for: later(HOUR).toISOString() })),
        409,
        'PUBLISH_BEFORE_COST_EFFECTIVE',
      );
      expect(early.param).toBe('scheduled_for');
      const scheduled = await api.post('/v1/changes', changeBody(product.id, draft, { scheduled_for: at.toISOString() }));
      expect(scheduled.status).toBe(201);
      expect(scheduled.body).toMatchObject({ status: 'pending', scheduled_for: at.toISOString() });
    });
  });

  describe('scheduling, ranks and firing', () => {
    it('schedules releases (draft slot freed, ranks in order), fires each at exactly scheduled_for, renumbers no rank', async () => {
      const product = await api.liveProduct('1');
      const head1 = product.live_version.id;
      const t1 = later(HOUR);
      const t2 = later(2 * HOUR);
      await stage(product.id, '2');
      const c1 = await scheduleDraft(api, product.id, t1, { release_name: 'one' });
      expect(c1).toMatchObject({ status: 'pending', scheduled_for: t1.toISOString(), rank: 1, result: null, applied_at: null });
      expect(await productOf(api, product.id)).toMatchObject({
        draft_version: null,
        has_scheduled_version: true,
        next_release_at: t1.toISOString(),
        unit_price: '1',
        price_expression: '1',
      });
      // The later release first, then one in between: ranks follow scheduled_for.
      await stage(product.id, '4');
      const c3 = await scheduleDraft(api, product.id, later(3 * HOUR));
      const draft = await api.post(`/v1/products/${product.id}/draft`);
      expect(draft.body).toMatchObject({ version: 4, base_version_id: head1 });
      await stage(product.id, '3');
      const c2 = await scheduleDraft(api, product.id, t2);
      expect([(await change(c1.id)).rank, (await change(c2.id)).rank, (await change(c3.id)).rank]).toEqual([1, 2, 3]);
      const queued = (await versionsOf(api, product.id)).filter((row) => row.status === 'scheduled');
      expect(queued.map((row) => [row.version, row.rank, row.scheduled_change_id])).toEqual([
        [4, 2, c2.id],
        [3, 3, c3.id],
        [2, 1, c1.id],
      ]);

      // Not yet due: the job finds nothing to fire.
      await fire(product.id, c1.id);
      expect((await change(c1.id)).status).toBe('pending');

      clock.set(new Date(t1.getTime() + 5 * 60_000));
      await t.app.get(JobQueue).runNow(FIRE_PRODUCT_RELEASE_JOB, {
        organizationId: tenant.organization_id,
        workspaceId: tenant.liveWorkspaceId,
        productId: product.id,
        changeId: c1.id,
      });
      const applied = await change(c1.id);
      expect(applied).toMatchObject({ status: 'applied', rank: null, applied_at: t1.toISOString(), result: { version: 2 } });
      const versions = await versionsOf(api, product.id);
      const byNumber = Object.fromEntries(versions.map((row) => [row.version, row]));
      expect(byNumber[2]).toMatchObject({
        status: 'published',
        origin: 'scheduled_release',
        effective_from: t1.toISOString(),
        published_at: t1.toISOString(),
        release_name: 'one',
        unit_price: '2',
      });
      expect(byNumber[1]).toMatchObject({ status: 'archived', archived_reason: 'superseded', effective_to: t1.toISOString() });
      expect([byNumber[4].rank, byNumber[3].rank]).toEqual([1, 2]);
      expect((await change(c2.id)).rank).toBe(1);
      expect(await productOf(api, product.id)).toMatchObject({ version: 2, unit_price: '2', next_release_at: t2.toISOString() });

      // Firing again changes nothing.
      await fire(product.id, c1.id);
      expect((await versionsOf(api, product.id)).filter((row) => row.status === 'published')).toHaveLength(1);
      expect(await versionsOf(api, product.id)).toEqual(versions);
    });

    it('catches up: a command on a product with due releases fires them first, in order, exactly once', async () => {
      const product = await api.liveProduct('10');
      const t1 = later(HOUR);
      const t2 = later(2 * HOUR);
      await stage(product.id, '11');
      const c1 = await scheduleDraft(api, product.id, t1);
      await stage(product.id, '12');
      const c2 = await scheduleDraft(api, product.id, t2);
      clock.set(later(3 * HOUR));
      // A display edit is a command: it fires both releases before acting.
      expect((await api.patch(`/v1/products/${product.id}`, { name: 'Caught up' })).status).toBe(200);
      expect([(await change(c1.id)).status, (await change(c2.id)).status]).toEqual(['applied', 'applied']);
      expect((await change(c2.id)).applied_at).toBe(t2.toISOString());
      const versions = await versionsOf(api, product.id);
      expect(versions.map((row) => [row.version, row.status, row.effective_from, row.effective_to])).toEqual([
        [3, 'published', t2.toISOString(), null],
        [2, 'archived', t1.toISOString(), t2.toISOString()],
        [1, 'archived', expect.any(String), t1.toISOString()],
      ]);
      // The job arriving late fires nothing a second time.
      await fire(product.id, c1.id);
      await fire(product.id, c2.id);
      expect(await versionsOf(api, product.id)).toEqual(versions);
      expect(await productOf(api, product.id)).toMatchObject({
        unit_price: '12',
        version: 3,
        has_scheduled_version: false,
        next_release_at: null,
      });
    });

    it('refuses a schedule in the past or now (PUBLISH_SCHEDULE_IN_PAST) and a taken slot (PUBLISH_SCHEDULE_TAKEN)', async () => {
      const product = await api.liveProduct('1');
      const draft = await stage(product.id, '2');
      const past = expectError(
        await api.post('/v1/changes', changeBody(product.id, draft.id, { scheduled_for: clock.now().toISOString() })),
        409,
        'PUBLISH_SCHEDULE_IN_PAST',
      );
      expect(past.param).toBe('scheduled_for');
      const at = later(HOUR);
      await scheduleDraft(api, product.id, at);
      const next = await stage(product.id, '3');
      const taken = expectError(
        await api.post('/v1/changes', changeBody(product.id, next.id, { scheduled_for: at.toISOString() })),
        409,
        'PUBLISH_SCHEDULE_TAKEN',
      );
      expect(taken.param).toBe('scheduled_for');
    });

    it('refuses a draft based on a release going live before it (PUBLISH_BEFORE_BASE_RELEASE); after it is fine', async () => {
      const product = await api.liveProduct('1');
      await stage(product.id, '2');
      const s = later(HOUR);
      await scheduleDraft(api, product.id, s);
      const release = (await versionsOf(api, product.id)).find((row) => row.status === 'scheduled');
      const draft = (await api.post(`/v1/products/${product.id}/draft`, { base_version_id: release.id })).body;
      await stage(product.id, '2 + 1');
      const now = expectError(
        await api.post('/v1/changes', changeBody(product.id, draft.id)),
        409,
        'PUBLISH_BEFORE_BASE_RELEASE',
      );
      expect(now.details).toEqual({ base_version: release.version, base_scheduled_for: s.toISOString() });
      expectError(
        await api.post(
          '/v1/changes',
          changeBody(product.id, draft.id, { scheduled_for: new Date(s.getTime() - 1000).toISOString() }),
        ),
        409,
        'PUBLISH_BEFORE_BASE_RELEASE',
      );
      const after = await api.post(
        '/v1/changes',
        changeBody(product.id, draft.id, { scheduled_for: new Date(s.getTime() + 1000).toISOString() }),
      );
      expect(after.status).toBe(201);
      expect(after.body.rank).toBe(2);
    });

    it('refuses a draft whose base was superseded by other content (409 PUBLISH_STALE_BASE)', async () => {
      const product = await api.liveProduct('1');
      await stage(product.id, '2');
      const release = await scheduleDraft(api, product.id, later(HOUR));
      // A second draft on the head, with edits of its own.
      const draft = await stage(product.id, '5');
      clock.set(later(2 * HOUR));
      await fire(product.id, release.id);
      const stale = expectError(await api.post('/v1/changes', changeBody(product.id, draft.id)), 409, 'PUBLISH_STALE_BASE');
      expect(stale.details).toEqual({
        base_version_id: product.live_version.id,
        head_version_id: (await productOf(api, product.id)).live_version.id,
      });
      // Re-based work publishes: discard and stage again on the new head.
      expect((await api.delete(`/v1/products/${product.id}/draft`)).status).toBe(204);
      const fresh = await stage(product.id, '5');
      expect((await api.post('/v1/changes', changeBody(product.id, fresh.id))).status).toBe(201);
      expect((await productOf(api, product.id)).unit_price).toBe('5');
    });

    it('an edit-free draft follows the new head when a release fires; one with edits keeps its base', async () => {
      const product = await api.liveProduct('1');
      await stage(product.id, '2');
      const release = await scheduleDraft(api, product.id, later(HOUR));
      const opened = (await api.post(`/v1/products/${product.id}/draft`)).body;
      expect(opened).toMatchObject({ base_version: 1, price_expression: '1' });
      clock.set(later(2 * HOUR));
      await fire(product.id, release.id);
      const followed = (await api.get(`/v1/products/${product.id}/draft`)).body;
      expect(followed).toMatchObject({ id: opened.id, base_version: 2, head_version: 2, price_expression: '2', version: 3 });
      expect(followed.summary).toEqual({ fields_changed: [], costs_added: [], costs_removed: [], cost_values_changed: [] });
    });

    it('errors a release whose formula no longer resolves when it fires: change failed, the head keeps billing', async () => {
      const gone = await api.orgCost('gone_at_fire', { amount: '3' });
      const product = await api.liveProduct('1');
      await stage(product.id, 'gone_at_fire * 2');
      const release = await scheduleDraft(api, product.id, later(HOUR));
      expect((await api.delete(`/v1/costs/${gone.id}`)).status).toBe(204);
      clock.set(later(2 * HOUR));
      await fire(product.id, release.id);
      expect(await change(release.id)).toMatchObject({
        status: 'failed',
        result: null,
        error: { code: 'PUBLISH_FORMULA_INVALID', message: expect.stringContaining('gone_at_fire') },
      });
      const errored = (await versionsOf(api, product.id)).find((row) => row.version === 2);
      expect(errored).toMatchObject({
        status: 'archived',
        archived_reason: 'errored',
        error: { code: 'PUBLISH_FORMULA_INVALID' },
      });
      expect(await productOf(api, product.id)).toMatchObject({ unit_price: '1', version: 1, has_scheduled_version: false });
    });
  });

  describe('cancel', () => {
    it('cancels a pending change (its version archived/canceled, dependents listed); refuses anything not pending', async () => {
      const product = await api.liveProduct('1');
      await stage(product.id, '2');
      const pending = await scheduleDraft(api, product.id, later(HOUR));
      const release = (await versionsOf(api, product.id)).find((row) => row.status === 'scheduled');
      const dependent = (await api.post(`/v1/products/${product.id}/draft`, { base_version_id: release.id })).body;
      await stage(product.id, '2 + 2');
      const canceled = await api.post(`/v1/changes/${pending.id}/cancel`);
      expect(canceled.status).toBe(200);
      expect(canceled.body).toMatchObject({
        id: pending.id,
        status: 'canceled',
        rank: null,
        canceled_at: clock.now().toISOString(),
        dependents: [{ id: dependent.id, version: dependent.version, status: 'draft' }],
      });
      expect((await versionsOf(api, product.id)).find((row) => row.id === release.id)).toMatchObject({
        status: 'archived',
        archived_reason: 'canceled',
      });
      // The draft keeps its content; its base falls back to the head, so the release's change shows as staged.
      const draft = (await api.get(`/v1/products/${product.id}/draft`)).body;
      expect(draft).toMatchObject({
        id: dependent.id,
        base_version: 1,
        price_expression: '2 + 2',
        summary: { fields_changed: ['price_expression'] },
      });
      expect(await productOf(api, product.id)).toMatchObject({ has_scheduled_version: false, next_release_at: null });

      const twice = expectError(await api.post(`/v1/changes/${pending.id}/cancel`), 409, 'INVALID_STATUS_TRANSITION');
      expect(twice.details).toEqual({ from: 'canceled', to: 'canceled', allowed: [] });
      const applied = await api.publish(product.id);
      expect(
        expectError(await api.post(`/v1/changes/${applied.id}/cancel`), 409, 'INVALID_STATUS_TRANSITION').details,
      ).toMatchObject({
        from: 'applied',
      });
    });

    it('refuses to cancel a release that is already due: catch-up fires it first', async () => {
      const product = await api.liveProduct('1');
      await stage(product.id, '7');
      const pending = await scheduleDraft(api, product.id, later(HOUR));
      clock.set(later(2 * HOUR));
      expectError(await api.post(`/v1/changes/${pending.id}/cancel`), 409, 'INVALID_STATUS_TRANSITION');
      expect((await change(pending.id)).status).toBe('applied');
      expect((await productOf(api, product.id)).unit_price).toBe('7');
    });

    it('archiving a product cancels its queue', async () => {
      const product = await api.liveProduct('1');
      await stage(product.id, '2');
      const pending = await scheduleDraft(api, product.id, later(HOUR));
      expect((await api.patch(`/v1/products/${product.id}`, { status: 'archived' })).status).toBe(200);
      expect(await change(pending.id)).toMatchObject({ status: 'canceled', canceled_at: clock.now().toISOString() });
      expect((await versionsOf(api, product.id)).map((row) => [row.version, row.status, row.archived_reason])).toEqual([
        [2, 'archived', 'canceled'],
        [1, 'published', null],
      ]);
    });
  });

  describe('concurrent requests', () => {
    it('publishes a draft once when two changes race for it; the loser is refused, never a 500', async () => {
      for (let round = 0; round < 5; round += 1) {
        const product = await api.liveProduct('1');
        const draft = await stage(product.id, `${round + 2}`);
        const answers = await Promise.all([
          api.post('/v1/changes', changeBody(product.id, draft.id)),
          api.post('/v1/changes', changeBody(product.id, draft.id, { scheduled_for: later(HOUR).toISOString() })),
          api.post('/v1/changes', changeBody(product.id, draft.id)),
        ]);
        const statuses = answers
          .map((response) => `${response.status} ${response.body.error?.code ?? response.body.status}`)
          .sort();
        expect(statuses.filter((status) => status.startsWith('201'))).toHaveLength(1);
        expect(statuses.filter((status) => !status.startsWith('201'))).toEqual([
          '409 PUBLISH_NOT_WORKING_DRAFT',
          '409 PUBLISH_NOT_WORKING_DRAFT',
        ]);
        const [{ count }] = await db.query(`SELECT count(*)::int AS count FROM changes WHERE subject_id = $1`, [product.id]);
        expect(count).toBe(2);
      }
    });

    it('creates an ORG key once when two creates race; the other is 409 ALREADY_EXISTS', async () => {
      for (let round = 0; round < 5; round += 1) {
        const answers = await Promise.all([0, 1, 2].map(() => api.post('/v1/costs', { key: `race_${round}`, amount: '1' })));
        expect(answers.map((response) => `${response.status} ${response.body.error?.code ?? ''}`).sort()).toEqual([
          '201 ',
          '409 ALREADY_EXISTS',
          '409 ALREADY_EXISTS',
        ]);
      }
    });

    it('stages racing product costs of one key once (the product row serializes them)', async () => {
      const product = await api.liveProduct('1');
      const answers = await Promise.all(
        [0, 1, 2].map((n) => api.post(`/v1/products/${product.id}/costs`, { key: 'racing', amount: `${n}` })),
      );
      expect(answers.map((response) => `${response.status} ${response.body.error?.code ?? ''}`).sort()).toEqual([
        '201 ',
        '409 ALREADY_EXISTS',
        '409 ALREADY_EXISTS',
      ]);
    });
  });

  describe('version numbers', () => {
    it('follow freeze order: a cascade publishing while a draft is open takes the number, the draft moves up', async () => {
      const rate = await api.orgCost('numbering_rate', { amount: '1' });
      const product = await api.liveProduct('numbering_rate * 10');
      const draft = await stage(product.id, 'numbering_rate * 20');
      expect(draft.version).toBe(2);
      expect((await api.patch(`/v1/costs/${rate.id}`, { amount: '2' })).status).toBe(200);
      await drainCascades(t);
      const after = await productOf(api, product.id);
      expect(after).toMatchObject({ version: 2, unit_price: '20', draft_version: { id: draft.id, version: 3 } });
      const published = await api.publish(product.id);
      expect(published.result).toEqual({ id: draft.id, version: 3 });
      expect((await versionsOf(api, product.id)).map((row) => [row.version, row.origin])).toEqual([
        [3, 'manual'],
        [2, 'cascade'],
        [1, 'manual'],
      ]);
      expect((await productOf(api, product.id)).unit_price).toBe('40');
    });
  });
});

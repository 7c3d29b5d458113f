import { ManualClock } from '@app/shared-kernel';
import { expectError, expectFieldError } from '../support/auth-helpers';
import { CatalogClient, changeBody, productCostsOf, productOf, scheduleDraft, versionsOf } from '../support/catalog-helpers';
import { UUID } from '../support/expectations';
import { createTenant } from '../support/tenants';
import { createTestApp, TestApp } from '../support/test-app';

jest.setTimeout(120_000);

const HOUR = 3_600_000;

/**
 * Products over HTTP (model §2.4, §3.8): live fields, the staged price formula, the working
 * draft (open, re-base, discard, its summary), the version list and the product cost views.
 */
describe('Catalog products and drafts', () => {
  const clock = new ManualClock(new Date('2027-07-01T08:00:00.000Z'));
  let t: TestApp;
  let api: CatalogClient;

  beforeAll(async () => {
    t = await createTestApp({ clock });
    api = new CatalogClient(t, (await createTenant(t)).auth);
  });
  afterAll(() => t.close());

  async function draftOf(productId: string): Promise<any> {
    const response = await api.get(`/v1/products/${productId}/draft`);
    expect(response.status).toBe(200);
    return response.body;
  }

  describe('products', () => {
    it('creates a product: 201, Location, status draft at version 1; a price_expression opens the first draft', async () => {
      const bare = await api.post('/v1/products', { name: 'Bare' });
      expect(bare.status).toBe(201);
      expect(bare.headers.location).toBe(`/v1/products/${bare.body.id}`);
      expect(bare.body).toEqual({
        object: 'product',
        id: expect.stringMatching(UUID),
        name: 'Bare',
        description: null,
        metadata: {},
        status: 'draft',
        price_expression: null,
        unit_price: null,
        version: 1,
        live_version: null,
        draft_version: null,
        has_scheduled_version: false,
        next_release_at: null,
        published_at: null,
        archived_at: null,
        created_at: clock.now().toISOString(),
        updated_at: clock.now().toISOString(),
      });
      const priced = await api.post('/v1/products', {
        name: 'Priced',
        description: 'd',
        metadata: { k: 'v' },
        price_expression: '2 * 3',
      });
      expect(priced.status).toBe(201);
      expect(priced.body).toMatchObject({
        price_expression: '2 * 3',
        unit_price: null,
        status: 'draft',
        draft_version: { id: expect.stringMatching(UUID), version: 1 },
        description: 'd',
        metadata: { k: 'v' },
      });
      expect((await api.get(`/v1/products/${priced.body.id}`)).body).toEqual(priced.body);
      const listed = await api.get('/v1/products?limit=200');
      expect(listed.status).toBe(200);
      expect(listed.body.data.map((row: any) => row.id)).toEqual(expect.arrayContaining([bare.body.id, priced.body.id]));
    });

    it('refuses a bad create or update body (400 VALIDATION_ERROR) and unknown ids (404)', async () => {
      expectError(await api.post('/v1/products', {}), 400, 'VALIDATION_ERROR');
      expectFieldError(await api.post('/v1/products', { name: '   ' }), 'name', 'INVALID_FORMAT');
      expectError(await api.post('/v1/products', { name: 'x'.repeat(201) }), 400, 'VALIDATION_ERROR');
      expectError(await api.post('/v1/products', { name: 'x', status: 'active' }), 400, 'VALIDATION_ERROR');
      const product = await api.product({ name: 'Patched' });
      expectFieldError(await api.patch(`/v1/products/${product.id}`, { status: 'active' }), 'status', 'INVALID_VALUE');
      expectFieldError(
        await api.patch(`/v1/products/${product.id}`, { price_expression: '  ' }),
        'price_expression',
        'INVALID_FORMAT',
      );
      expectError(await api.patch(`/v1/products/${product.id}`, { version: 3 }), 400, 'VALIDATION_ERROR');
      const unknown = '0193a5c2-7f4e-7b1a-9c1d-2f0e4b5a6d07';
      for (const id of [unknown, 'nope']) {
        expectError(await api.get(`/v1/products/${id}`), 404, 'PRODUCT_NOT_FOUND');
        expectError(await api.patch(`/v1/products/${id}`, { name: 'x' }), 404, 'PRODUCT_NOT_FOUND');
        expectError(await api.get(`/v1/products/${id}/versions`), 404, 'PRODUCT_NOT_FOUND');
        expectError(await api.get(`/v1/products/${id}/draft`), 404, 'PRODUCT_NOT_FOUND');
        expectError(await api.post(`/v1/products/${id}/draft`), 404, 'PRODUCT_NOT_FOUND');
        expectError(await api.delete(`/v1/products/${id}/draft`), 404, 'PRODUCT_NOT_FOUND');
        expectError(await api.get(`/v1/products/${id}/costs`), 404, 'PRODUCT_NOT_FOUND');
      }
      expect(await productOf(api, product.id)).toMatchObject({ name: 'Patched', price_expression: null, draft_version: null });
    });

    it('applies display fields live without a version; price_expression is staged; archiving keeps the head billing', async () => {
      const product = await api.liveProduct('5');
      clock.advance(1000);
      const display = await api.patch(`/v1/products/${product.id}`, { name: 'Renamed', description: 'New', metadata: { a: 1 } });
      expect(display.status).toBe(200);
      expect(display.body).toMatchObject({
        name: 'Renamed',
        description: 'New',
        metadata: { a: 1 },
        draft_version: null,
        version: 1,
      });
      expect((await api.patch(`/v1/products/${product.id}`, { description: '' })).body.description).toBeNull();
      expect(await versionsOf(api, product.id)).toHaveLength(1);

      const staged = await api.patch(`/v1/products/${product.id}`, { price_expression: '6' });
      expect(staged.body).toMatchObject({ price_expression: '6', unit_price: '5', version: 1, draft_version: { version: 2 } });
      expect(
        (await api.get(`/v1/products/${product.id}/versions`)).body.data.map((row: any) => [row.version, row.status]),
      ).toEqual([
        [2, 'draft'],
        [1, 'published'],
      ]);

      const archived = await api.patch(`/v1/products/${product.id}`, { status: 'archived' });
      expect(archived.status).toBe(200);
      expect(archived.body).toMatchObject({
        status: 'archived',
        archived_at: clock.now().toISOString(),
        unit_price: '5',
        version: 1,
      });
      expectError(await api.patch(`/v1/products/${product.id}`, { price_expression: '7' }), 409, 'ENTITY_ARCHIVED');
      // The working draft stays readable and discardable; display edits still apply.
      expect((await draftOf(product.id)).version).toBe(2);
      expect((await api.patch(`/v1/products/${product.id}`, { name: 'Archived seats' })).body.name).toBe('Archived seats');
      expect((await api.delete(`/v1/products/${product.id}/draft`)).status).toBe(204);
      expectError(await api.post(`/v1/products/${product.id}/draft`), 409, 'ENTITY_ARCHIVED');
      // Archiving twice is a no-op.
      expect((await api.patch(`/v1/products/${product.id}`, { status: 'archived' })).body.status).toBe('archived');
    });
  });

  describe('the working draft', () => {
    it('answers 404 STAGED_DRAFT_NOT_FOUND when none is open; opens on the head; returns the same draft on the same base', async () => {
      const product = await api.liveProduct('10');
      expectError(await api.get(`/v1/products/${product.id}/draft`), 404, 'STAGED_DRAFT_NOT_FOUND');
      expectError(await api.delete(`/v1/products/${product.id}/draft`), 404, 'STAGED_DRAFT_NOT_FOUND');
      clock.advance(1000);
      const opened = await api.post(`/v1/products/${product.id}/draft`);
      expect(opened.status).toBe(200);
      expect(opened.body).toEqual({
        object: 'staged_draft',
        id: expect.stringMatching(UUID),
        product_id: product.id,
        version: 2,
        opened_at: clock.now().toISOString(),
        updated_at: clock.now().toISOString(),
        base_version_id: product.live_version.id,
        base_version: 1,
        head_version: 1,
        not_before: null,
        price_expression: '10',
        summary: { fields_changed: [], costs_added: [], costs_removed: [], cost_values_changed: [] },
      });
      const again = await api.post(`/v1/products/${product.id}/draft`, { base_version_id: product.live_version.id });
      expect(again.status).toBe(200);
      expect(again.body).toEqual(opened.body);
      expect(await draftOf(product.id)).toEqual(opened.body);
    });

    it('discard uses up the draft’s number (the row stays listed as archived/discarded)', async () => {
      const product = await api.liveProduct('1');
      const first = (await api.post(`/v1/products/${product.id}/draft`)).body;
      expect(first.version).toBe(2);
      expect((await api.delete(`/v1/products/${product.id}/draft`)).status).toBe(204);
      expectError(await api.get(`/v1/products/${product.id}/draft`), 404, 'STAGED_DRAFT_NOT_FOUND');
      const second = (await api.post(`/v1/products/${product.id}/draft`)).body;
      expect(second.version).toBe(3);
      expect(second.id).not.toBe(first.id);
      const versions = await versionsOf(api, product.id);
      expect(versions.map((row) => [row.version, row.status, row.archived_reason])).toEqual([
        [3, 'draft', null],
        [2, 'archived', 'discarded'],
        [1, 'published', null],
      ]);
      expect(versions[1]).toMatchObject({ id: first.id, costs: [], origin: null });
      expect((await productOf(api, product.id)).draft_version).toEqual({ id: second.id, version: 3 });
    });

    it('summarizes the staged edits against the base: fields, costs added, removed and revalued', async () => {
      const product = await api.product({ name: 'Summary' });
      const kept = await api.productCost(product.id, 'kept', { amount: '1' });
      const dropped = await api.productCost(product.id, 'dropped', { amount: '2' });
      await api.patch(`/v1/products/${product.id}`, { price_expression: 'kept + dropped' });
      // A never-published product: everything is added against the initial content.
      expect((await draftOf(product.id)).summary).toEqual({
        fields_changed: ['price_expression'],
        costs_added: ['dropped', 'kept'],
        costs_removed: [],
        cost_values_changed: [],
      });
      await api.publish(product.id);
      expect((await api.patch(`/v1/products/${product.id}`, { price_expression: 'kept * 2' })).status).toBe(200);
      await api.productCost(product.id, 'fresh', { amount: '3' });
      expect((await api.delete(`/v1/costs/${dropped.id}`)).status).toBe(204);
      expect((await api.patch(`/v1/costs/${kept.id}`, { amount: '1.5' })).status).toBe(200);
      const draft = await draftOf(product.id);
      expect(draft).toMatchObject({ version: 2, base_version: 1, head_version: 1, price_expression: 'kept * 2' });
      expect(draft.summary).toEqual({
        fields_changed: ['price_expression'],
        costs_added: ['fresh'],
        costs_removed: ['dropped'],
        cost_values_changed: ['kept'],
      });
      expect((await productOf(api, product.id)).price_expression).toBe('kept * 2');
      const change = await api.publish(product.id);
      expect(change.result.version).toBe(2);
      expect(await productOf(api, product.id)).toMatchObject({ unit_price: '3', version: 2, draft_version: null });
    });

    it('opens on a scheduled release; refuses other bases (409 INVALID_BASE_VERSION, 404 for unknown ones); re-bases an edit-free draft; refuses to re-base edits', async () => {
      const product = await api.liveProduct('1');
      const other = await api.liveProduct('1');
      const head = product.live_version.id;
      await api.patch(`/v1/products/${product.id}`, { price_expression: '2' });
      const release = await scheduleDraft(api, product.id, new Date(clock.now().getTime() + HOUR));
      const scheduledRow = (await versionsOf(api, product.id)).find((row) => row.status === 'scheduled');
      expect(scheduledRow).toMatchObject({ version: 2, scheduled_change_id: release.id, rank: 1 });

      // A draft on the release carries its content.
      const onRelease = await api.post(`/v1/products/${product.id}/draft`, { base_version_id: scheduledRow.id });
      expect(onRelease.status).toBe(200);
      expect(onRelease.body).toMatchObject({
        version: 3,
        base_version_id: scheduledRow.id,
        base_version: 2,
        head_version: 1,
        price_expression: '2',
      });
      // Edit-free: re-based onto the head, same id, content re-copied.
      const rebased = await api.post(`/v1/products/${product.id}/draft`, { base_version_id: head });
      expect(rebased.body).toMatchObject({
        id: onRelease.body.id,
        base_version_id: head,
        base_version: 1,
        price_expression: '1',
      });

      // Bases that are neither the head nor a scheduled row: a discarded draft, another product's version.
      expect((await api.delete(`/v1/products/${product.id}/draft`)).status).toBe(204);
      const discarded = expectError(
        await api.post(`/v1/products/${product.id}/draft`, { base_version_id: onRelease.body.id }),
        409,
        'INVALID_BASE_VERSION',
      );
      expect(discarded.param).toBe('base_version_id');
      const stranger = await api.post(`/v1/products/${product.id}/draft`, { base_version_id: other.live_version.id });
      expect(expectError(stranger, 404, 'VERSION_NOT_FOUND').param).toBe('base_version_id');
      expectError(await api.post(`/v1/products/${product.id}/draft`, { base_version_id: 'nope' }), 400, 'VALIDATION_ERROR');
      expectError(await api.get(`/v1/products/${product.id}/draft`), 404, 'STAGED_DRAFT_NOT_FOUND');

      // With edits, a re-base is refused and the draft is left as it was.
      const reopened = await api.post(`/v1/products/${product.id}/draft`, { base_version_id: scheduledRow.id });
      expect(reopened.body).toMatchObject({ version: 4, base_version_id: scheduledRow.id });
      expect((await api.patch(`/v1/products/${product.id}`, { price_expression: '3' })).status).toBe(200);
      const current = await draftOf(product.id);
      expect(current.summary.fields_changed).toEqual(['price_expression']);
      const refused = expectError(
        await api.post(`/v1/products/${product.id}/draft`, { base_version_id: head }),
        409,
        'DRAFT_HAS_STAGED_EDITS',
      );
      expect(refused.param).toBe('base_version_id');
      expect(await draftOf(product.id)).toEqual(current);
    });

    it('refuses a superseded version as a base (409 INVALID_BASE_VERSION)', async () => {
      const product = await api.liveProduct('1');
      const first = product.live_version.id;
      await api.patch(`/v1/products/${product.id}`, { price_expression: '2' });
      await api.publish(product.id);
      const refused = expectError(
        await api.post(`/v1/products/${product.id}/draft`, { base_version_id: first }),
        409,
        'INVALID_BASE_VERSION',
      );
      expect(refused.param).toBe('base_version_id');
      expectError(await api.get(`/v1/products/${product.id}/draft`), 404, 'STAGED_DRAFT_NOT_FOUND');
    });
  });

  describe('versions and product cost views', () => {
    it('lists versions newest first with unit_price and the materialized costs, ORG ones included', async () => {
      const org = await api.orgCost('pv_org', { amount: '3' });
      const product = await api.product({ name: 'Versions' });
      const own = await api.productCost(product.id, 'pv_own', { amount: '2' });
      await api.patch(`/v1/products/${product.id}`, { price_expression: 'pv_org * pv_own', description: 'x' });
      const change = await api.publish(product.id, { release_name: 'v1', release_note: 'first' });
      const [v1] = await versionsOf(api, product.id);
      expect(v1).toEqual({
        object: 'product_version',
        id: change.result.id,
        product_id: product.id,
        version: 1,
        status: 'published',
        archived_reason: null,
        origin: 'manual',
        base_version_id: null,
        change_id: change.id,
        scheduled_change_id: null,
        scheduled_for: null,
        rank: null,
        effective_from: clock.now().toISOString(),
        effective_to: null,
        published_at: clock.now().toISOString(),
        release_name: 'v1',
        release_note: 'first',
        cascade_source: null,
        created_by: { type: 'api_key', id: expect.stringMatching(UUID) },
        created_at: expect.any(String),
        error: null,
        price_expression: 'pv_org * pv_own',
        unit_price: '6',
        not_before: null,
        costs: [
          { key: 'pv_org', cost_id: org.id, scope: 'ORG', revision: 1, kind: 'amount', expression: null, value: '3' },
          { key: 'pv_own', cost_id: own.id, scope: 'PRODUCT', revision: 1, kind: 'amount', expression: null, value: '2' },
        ],
      });
      clock.advance(1000);
      await api.patch(`/v1/products/${product.id}`, { price_expression: 'pv_own' });
      await api.publish(product.id);
      const [v2, v1After] = await versionsOf(api, product.id);
      expect(v2).toMatchObject({
        version: 2,
        status: 'published',
        base_version_id: v1.id,
        unit_price: '2',
        effective_from: clock.now().toISOString(),
      });
      expect(v1After).toMatchObject({
        status: 'archived',
        archived_reason: 'superseded',
        effective_to: clock.now().toISOString(),
      });

      const page = await api.get(`/v1/products/${product.id}/versions?limit=1`);
      expect(page.body.data.map((row: any) => row.version)).toEqual([2]);
      expect(page.body.pagination.has_more).toBe(true);
      const next = await api.get(`/v1/products/${product.id}/versions?limit=1&cursor=${page.body.pagination.cursor}`);
      expect(next.body.data.map((row: any) => row.version)).toEqual([1]);
      expect(next.body.pagination).toEqual({ cursor: null, has_more: false });
    });

    it('shows a product’s costs by view: default (live values where live), draft, head, a version’s rows; view with product_version_id is 400', async () => {
      const org = await api.orgCost('view_org', { amount: '100' });
      const product = await api.product({ name: 'Views' });
      const live = await api.productCost(product.id, 'view_live', { amount: '1' });
      await api.patch(`/v1/products/${product.id}`, { price_expression: 'view_live + view_org' });
      await api.publish(product.id);
      const head = (await productOf(api, product.id)).live_version.id;
      await api.patch(`/v1/costs/${live.id}`, { amount: '1.25' });
      const staged = await api.productCost(product.id, 'view_staged', { amount: '9' });

      const rows = (list: any[]) => list.map((row) => [row.key, row.amount, row.released, row.status]);
      expect(rows(await productCostsOf(api, product.id))).toEqual([
        ['view_live', '1', true, 'active'],
        ['view_staged', '9', false, 'active'],
      ]);
      expect(rows(await productCostsOf(api, product.id, 'view=draft'))).toEqual([
        ['view_live', '1.25', true, 'active'],
        ['view_staged', '9', false, 'active'],
      ]);
      expect(rows(await productCostsOf(api, product.id, 'view=head'))).toEqual([['view_live', '1', true, 'active']]);
      const pinned = await productCostsOf(api, product.id, `product_version_id=${head}`);
      expect(pinned.map((row) => [row.key, row.scope, row.id, row.value])).toEqual([
        ['view_org', 'ORG', org.id, '100'],
        ['view_live', 'PRODUCT', live.id, '1'],
      ]);
      expectFieldError(
        await api.get(`/v1/products/${product.id}/costs?view=head&product_version_id=${head}`),
        'product_version_id',
        'MUTUALLY_EXCLUSIVE',
      );
      expectError(await api.get(`/v1/products/${product.id}/costs?view=live`), 400, 'VALIDATION_ERROR');
      const foreign = await api.liveProduct('1');
      expect(
        expectError(
          await api.get(`/v1/products/${product.id}/costs?product_version_id=${foreign.live_version.id}`),
          404,
          'VERSION_NOT_FOUND',
        ).param,
      ).toBe('product_version_id');
      expect(staged.status).toBe('active');
      // With no draft open, view=draft shows the head's rows.
      expect((await api.delete(`/v1/products/${product.id}/draft`)).status).toBe(204);
      expect(rows(await productCostsOf(api, product.id, 'view=draft'))).toEqual([['view_live', '1', true, 'active']]);
    });

    it('keeps changes-only fields out of the product routes: a change body on a product is refused', async () => {
      const product = await api.product({ name: 'Body' });
      expectError(
        await api.post(`/v1/products/${product.id}/draft`, changeBody(product.id, product.id)),
        400,
        'VALIDATION_ERROR',
      );
    });
  });
});

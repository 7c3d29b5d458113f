import { ManualClock } from '@app/shared-kernel';
import { DataSource } from 'typeorm';
import { expectError, expectFieldError } from '../support/auth-helpers';
import { CatalogClient, productCostsOf, productOf } from '../support/catalog-helpers';
import { ISO, UUID } from '../support/expectations';
import { createTenant } from '../support/tenants';
import { createTestApp, TestApp } from '../support/test-app';

jest.setTimeout(120_000);

const HOUR = 3_600_000;

/**
 * Costs over HTTP (spec §2.2, §3 Cost, §4.1; catalog model §3): ORG and PRODUCT costs, their
 * value revisions, every state transition of model §3.4 and every cost refusal of §7. The app
 * runs on a ManualClock set after the real date, so queued jobs never fire by themselves.
 */
describe('Catalog costs', () => {
  const clock = new ManualClock(new Date('2027-06-01T08:00:00.000Z'));
  let t: TestApp;
  let api: CatalogClient;
  let db: DataSource;

  beforeAll(async () => {
    t = await createTestApp({ clock });
    db = t.app.get(DataSource);
    api = new CatalogClient(t, (await createTenant(t)).auth);
  });
  afterAll(() => t.close());

  async function revisions(
    costId: string,
  ): Promise<Array<{ revision_no: number; kind: string; amount: string | null; expression: string | null }>> {
    return db.query(
      `SELECT revision_no, kind, amount::text AS amount, expression FROM cost_revisions WHERE cost_id = $1 ORDER BY revision_no`,
      [costId],
    );
  }

  async function listed(query = ''): Promise<string[]> {
    const response = await api.get(`/v1/costs?limit=200${query}`);
    expect(response.status).toBe(200);
    return response.body.data.map((cost: { id: string }) => cost.id);
  }

  describe('ORG costs', () => {
    it('creates an ORG cost: 201, Location, the whole body; the scale is kept as written', async () => {
      const response = await api.post('/v1/costs', {
        key: 'org.fee-1',
        amount: '12.50',
        description: 'Platform fee',
        metadata: { ledger: '4000' },
        translations: { de: 'Plattformgebühr' },
        product_id: null,
      });
      expect(response.status).toBe(201);
      expect(response.headers.location).toBe(`/v1/costs/${response.body.id}`);
      expect(response.body).toEqual({
        object: 'cost',
        id: expect.stringMatching(UUID),
        key: 'org.fee-1',
        scope: 'ORG',
        product_id: null,
        amount: '12.50',
        expression: null,
        value: '12.50',
        revision: 1,
        effective_at: clock.now().toISOString(),
        pending_value: null,
        released: null,
        description: 'Platform fee',
        metadata: { ledger: '4000' },
        translations: { de: 'Plattformgebühr' },
        requires_continuous_coverage: false,
        status: 'active',
        cascade_run_id: null,
        created_at: clock.now().toISOString(),
        updated_at: clock.now().toISOString(),
      });
      const read = await api.get(`/v1/costs/${response.body.id}`);
      expect(read.status).toBe(200);
      expect(read.body).toEqual(response.body);
    });

    it('creates an expression cost: amount null, the expression, and its value evaluated now', async () => {
      await api.orgCost('expr_base', { amount: '4' });
      const cost = await api.orgCost('expr_total', { expression: 'expr_base * 2.5 + 1' });
      expect(cost).toMatchObject({ amount: null, expression: 'expr_base * 2.5 + 1', value: '11', revision: 1 });
      expect(await revisions(cost.id)).toEqual([
        { revision_no: 1, kind: 'value', amount: null, expression: 'expr_base * 2.5 + 1' },
      ]);
    });

    it('lists active costs newest first, by scope, and pages with a signed cursor', async () => {
      const product = await api.product({ name: 'Lister' });
      const productCost = await api.productCost(product.id, 'list_product_cost', { amount: '1' });
      clock.advance(1000);
      const first = await api.orgCost('list_a', { amount: '1' });
      clock.advance(1000);
      const second = await api.orgCost('list_b', { amount: '2' });
      const all = await listed();
      expect(all.indexOf(second.id)).toBeLessThan(all.indexOf(first.id));
      expect(all).toContain(productCost.id);
      expect(await listed('&scope=ORG')).not.toContain(productCost.id);
      expect(await listed('&scope=ORG')).toEqual(expect.arrayContaining([first.id, second.id]));
      expect(await listed('&scope=PRODUCT')).toEqual([productCost.id]);

      const page1 = await api.get('/v1/costs?limit=1&scope=ORG');
      expect(page1.status).toBe(200);
      expect(page1.body.data).toHaveLength(1);
      expect(page1.body.pagination).toEqual({ cursor: expect.any(String), has_more: true });
      const page2 = await api.get(`/v1/costs?limit=1&scope=ORG&cursor=${page1.body.pagination.cursor}`);
      expect(page2.status).toBe(200);
      expect(page2.body.data[0].id).not.toBe(page1.body.data[0].id);
      // A cursor of one list replayed on another filter set is refused.
      expectError(await api.get(`/v1/costs?limit=1&scope=PRODUCT&cursor=${page1.body.pagination.cursor}`), 400, 'INVALID_CURSOR');
      expectError(await api.get('/v1/costs?scope=org'), 400, 'VALIDATION_ERROR');
    });

    it('applies display-only edits live, without a revision; a value change is a new revision that cascades', async () => {
      const cost = await api.orgCost('display_fee', { amount: '3.00' });
      clock.advance(1000);
      const display = await api.patch(`/v1/costs/${cost.id}`, {
        description: 'Shown on invoices',
        metadata: { a: 1 },
        translations: { fr: 'Frais' },
        requires_continuous_coverage: true,
      });
      expect(display.status).toBe(200);
      expect(display.body).toMatchObject({
        amount: '3.00',
        revision: 1,
        description: 'Shown on invoices',
        metadata: { a: 1 },
        translations: { fr: 'Frais' },
        requires_continuous_coverage: true,
        cascade_run_id: null,
        updated_at: clock.now().toISOString(),
      });
      // null leaves a field unchanged; "" clears the description.
      const unchanged = await api.patch(`/v1/costs/${cost.id}`, { description: null, requires_continuous_coverage: null });
      expect(unchanged.body).toMatchObject({ description: 'Shown on invoices', requires_continuous_coverage: true });
      expect((await api.patch(`/v1/costs/${cost.id}`, { description: '' })).body.description).toBeNull();
      expect(await revisions(cost.id)).toHaveLength(1);

      const valued = await api.patch(`/v1/costs/${cost.id}`, { amount: '4.00' });
      expect(valued.status).toBe(200);
      expect(valued.body).toMatchObject({ amount: '4.00', value: '4.00', revision: 2, effective_at: clock.now().toISOString() });
      expect(valued.body.cascade_run_id).toMatch(UUID);
      const run = await api.get(`/v1/cascade_runs/${valued.body.cascade_run_id}`);
      expect(run.status).toBe(200);
      expect(run.body).toMatchObject({ trigger: 'cost_value', source: { entity_type: 'cost', entity_id: cost.id, version: 2 } });
      // A switch to an expression is a revision too.
      await api.orgCost('display_base', { amount: '10' });
      const expression = await api.patch(`/v1/costs/${cost.id}`, { expression: 'display_base / 4' });
      expect(expression.body).toMatchObject({ amount: null, expression: 'display_base / 4', value: '2.5', revision: 3 });
    });

    it('keeps a future value pending until its effective_at', async () => {
      const cost = await api.orgCost('future_fee', { amount: '1.00' });
      const at = new Date(clock.now().getTime() + 2 * HOUR);
      const saved = await api.patch(`/v1/costs/${cost.id}`, { amount: '2.00', effective_at: at.toISOString() });
      expect(saved.status).toBe(200);
      expect(saved.body).toMatchObject({
        amount: '1.00',
        value: '1.00',
        revision: 1,
        pending_value: { amount: '2.00', expression: null, effective_at: at.toISOString(), revision: 2 },
      });
      clock.set(at);
      const later = await api.get(`/v1/costs/${cost.id}`);
      expect(later.body).toMatchObject({
        amount: '2.00',
        value: '2.00',
        revision: 2,
        pending_value: null,
        effective_at: at.toISOString(),
      });
    });

    it('retires on remove (GET 404, not listed, no edits), restores while it is its key’s head, refuses once another took the key', async () => {
      const cost = await api.orgCost('retiring', { amount: '5' });
      const removed = await api.delete(`/v1/costs/${cost.id}`);
      expect(removed.status).toBe(204);
      expect(removed.text).toBe('');
      expectError(await api.get(`/v1/costs/${cost.id}`), 404, 'COST_NOT_FOUND');
      expect(await listed()).not.toContain(cost.id);
      expectError(await api.patch(`/v1/costs/${cost.id}`, { amount: '6' }), 404, 'COST_NOT_FOUND');
      expectError(await api.patch(`/v1/costs/${cost.id}`, { description: 'x' }), 404, 'COST_NOT_FOUND');
      expectError(await api.delete(`/v1/costs/${cost.id}`), 404, 'COST_NOT_FOUND');
      // The consumers route still answers for a retired cost.
      expect((await api.get(`/v1/costs/${cost.id}/consumers`)).status).toBe(200);
      expect((await revisions(cost.id)).map((row) => row.kind)).toEqual(['value', 'retire']);

      const restored = await api.post(`/v1/costs/${cost.id}/restore`);
      expect(restored.status).toBe(200);
      expect(restored.body).toMatchObject({ id: cost.id, status: 'active', amount: '5', revision: 1 });
      expect(await listed()).toContain(cost.id);
      expect((await revisions(cost.id)).map((row) => row.kind)).toEqual(['value', 'retire', 'restore']);
      // Restoring an active cost changes nothing.
      const again = await api.post(`/v1/costs/${cost.id}/restore`);
      expect(again.status).toBe(200);
      expect(await revisions(cost.id)).toHaveLength(3);

      // While the key is active, a second ORG cost cannot take it.
      expectError(await api.post('/v1/costs', { key: 'retiring', amount: '1' }), 409, 'ALREADY_EXISTS');
      expect((await api.delete(`/v1/costs/${cost.id}`)).status).toBe(204);
      const successor = await api.orgCost('retiring', { amount: '7' });
      const refused = expectError(await api.post(`/v1/costs/${cost.id}/restore`), 409, 'COST_KEY_NOT_IN_HEAD');
      expect(refused.details).toEqual({ key: 'retiring' });
      // Even once the successor retires too, the key's head is the newest cost created with it.
      expect((await api.delete(`/v1/costs/${successor.id}`)).status).toBe(204);
      expectError(await api.post(`/v1/costs/${cost.id}/restore`), 409, 'COST_KEY_NOT_IN_HEAD');
      expect((await api.post(`/v1/costs/${successor.id}/restore`)).status).toBe(200);
    });
  });

  describe('refusals', () => {
    it('refuses a bad key: format and length (400 VALIDATION_ERROR)', async () => {
      for (const key of ['', 'has space', 'ümlaut', 'a/b', 'x'.repeat(65)]) {
        expectFieldError(await api.post('/v1/costs', { key, amount: '1' }), 'key', 'INVALID_FORMAT');
      }
      expectError(await api.post('/v1/costs', { key: 5, amount: '1' }), 400, 'VALIDATION_ERROR');
      expect((await api.post('/v1/costs', { key: 'k'.repeat(64), amount: '1' })).status).toBe(201);
    });

    it('refuses a bad amount: format, more than 18 integer or 12 fraction digits', async () => {
      for (const amount of ['1e3', 'abc', '1.', '.5', '+1', '1,5', ' 1']) {
        expectFieldError(await api.post('/v1/costs', { key: 'bad_amount', amount }), 'amount', 'INVALID_FORMAT');
      }
      expectFieldError(await api.post('/v1/costs', { key: 'bad_amount', amount: '1'.repeat(19) }), 'amount', 'OUT_OF_RANGE');
      expectFieldError(await api.post('/v1/costs', { key: 'bad_amount', amount: '0.1234567890123' }), 'amount', 'TOO_PRECISE');
      expectError(await api.post('/v1/costs', { key: 'bad_amount', amount: 12.5 }), 400, 'VALIDATION_ERROR');
      const edge = await api.orgCost('edge_amount', { amount: `-${'9'.repeat(18)}.${'1'.repeat(12)}` });
      expect(edge.amount).toBe(`-${'9'.repeat(18)}.${'1'.repeat(12)}`);
      expectFieldError(await api.patch(`/v1/costs/${edge.id}`, { amount: '1.0000000000001' }), 'amount', 'TOO_PRECISE');
    });

    it('refuses both amount and expression, and neither on create', async () => {
      expectFieldError(
        await api.post('/v1/costs', { key: 'both', amount: '1', expression: '2' }),
        'expression',
        'MUTUALLY_EXCLUSIVE',
      );
      expectFieldError(await api.post('/v1/costs', { key: 'neither' }), 'amount', 'REQUIRED');
      expectFieldError(await api.post('/v1/costs', { key: 'neither', amount: null, expression: null }), 'amount', 'REQUIRED');
      const cost = await api.orgCost('both_on_update', { amount: '1' });
      expectFieldError(
        await api.patch(`/v1/costs/${cost.id}`, { amount: '1', expression: '2' }),
        'expression',
        'MUTUALLY_EXCLUSIVE',
      );
    });

    it('refuses a non-null product_id on POST /v1/costs and one differing from the path on a product', async () => {
      const product = await api.product({ name: 'Owner' });
      const other = await api.product({ name: 'Other' });
      expectFieldError(
        await api.post('/v1/costs', { key: 'pid', amount: '1', product_id: product.id }),
        'product_id',
        'INVALID_VALUE',
      );
      expectFieldError(
        await api.post(`/v1/products/${product.id}/costs`, { key: 'pid', amount: '1', product_id: other.id }),
        'product_id',
        'INVALID_VALUE',
      );
      const same = await api.post(`/v1/products/${product.id}/costs`, { key: 'pid', amount: '1', product_id: product.id });
      expect(same.status).toBe(201);
      expect(same.body).toMatchObject({ scope: 'PRODUCT', product_id: product.id });
    });

    it('refuses effective_at in the past; DRAFT_NOT_SUPPORTED first; publish controls without a value change', async () => {
      const cost = await api.orgCost('controls', { amount: '1' });
      const past = new Date(clock.now().getTime() - 1000).toISOString();
      expectFieldError(
        await api.patch(`/v1/costs/${cost.id}`, { amount: '2', effective_at: past }),
        'effective_at',
        'OUT_OF_RANGE',
      );
      // save_as_draft: true is refused before anything else, even with a past effective_at and no value.
      const draft = expectError(
        await api.patch(`/v1/costs/${cost.id}`, { save_as_draft: true, effective_at: past, amount: 'bad' }),
        400,
        'DRAFT_NOT_SUPPORTED',
      );
      expect(draft.param).toBe('save_as_draft');
      const controls = expectError(
        await api.patch(`/v1/costs/${cost.id}`, {
          description: 'x',
          effective_at: new Date(clock.now().getTime() + HOUR).toISOString(),
        }),
        400,
        'PUBLISH_CONTROLS_NOT_ALLOWED',
      );
      expect(controls.param).toBe('effective_at');
      expect(
        expectError(await api.patch(`/v1/costs/${cost.id}`, { save_as_draft: false }), 400, 'PUBLISH_CONTROLS_NOT_ALLOWED').param,
      ).toBe('save_as_draft');
      expectError(await api.patch(`/v1/costs/${cost.id}`, { effective_at: 'tomorrow', amount: '2' }), 400, 'VALIDATION_ERROR');
      expect(await revisions(cost.id)).toHaveLength(1);
      expect((await api.get(`/v1/costs/${cost.id}`)).body).toMatchObject({ description: null, amount: '1' });
    });

    it('refuses formulas that do not parse (400, details.position), name unknown keys, cycle or divide by zero (422)', async () => {
      const syntax = expectError(
        await api.post('/v1/costs', { key: 'f_syntax', expression: '1 + * 2' }),
        400,
        'FORMULA_SYNTAX_ERROR',
      );
      expect(syntax.details).toMatchObject({ position: 4 });
      const unknown = expectError(
        await api.post('/v1/costs', { key: 'f_unknown', expression: 'nope + also_nope' }),
        422,
        'FORMULA_UNKNOWN_KEY',
      );
      expect(unknown.details).toMatchObject({ keys: ['also_nope', 'nope'] });
      const zero = expectError(
        await api.post('/v1/costs', { key: 'f_zero', expression: '1 / 0' }),
        422,
        'FORMULA_EVALUATION_ERROR',
      );
      expect(zero.details).toMatchObject({ reason: 'division_by_zero' });
      // Itself, and through another key.
      expect(
        expectError(await api.post('/v1/costs', { key: 'f_self', expression: 'f_self + 1' }), 422, 'FORMULA_CYCLE').details,
      ).toMatchObject({
        path: ['f_self', 'f_self'],
      });
      const a = await api.orgCost('cyc_a', { amount: '1' });
      await api.orgCost('cyc_b', { expression: 'cyc_a * 2' });
      const cycle = expectError(await api.patch(`/v1/costs/${a.id}`, { expression: 'cyc_b + 1' }), 422, 'FORMULA_CYCLE');
      expect(cycle.details).toEqual({ path: ['cyc_a', 'cyc_b', 'cyc_a'] });
      // A product's price formula is checked the same way.
      const product = await api.product({ name: 'Formulas' });
      expectError(await api.patch(`/v1/products/${product.id}`, { price_expression: '(1' }), 400, 'FORMULA_SYNTAX_ERROR');
      expectError(await api.post('/v1/products', { name: 'x', price_expression: 'missing_key' }), 422, 'FORMULA_UNKNOWN_KEY');
      expect(await revisions(a.id)).toHaveLength(1);
    });

    it('refuses an ORG value that would break a consumer’s live price (422 CONSUMER_WOULD_BREAK), saving nothing', async () => {
      const divisor = await api.orgCost('divisor', { amount: '4' });
      const product = await api.liveProduct('100 / divisor');
      expect(product.unit_price).toBe('25');
      const refused = expectError(await api.patch(`/v1/costs/${divisor.id}`, { amount: '0' }), 422, 'CONSUMER_WOULD_BREAK');
      expect(refused.details).toEqual({
        products: [
          { product_id: product.id, code: 'PUBLISH_FORMULA_INVALID', message: expect.stringContaining('Division by zero') },
        ],
      });
      expect(await revisions(divisor.id)).toHaveLength(1);
      expect((await api.get(`/v1/costs/${divisor.id}`)).body).toMatchObject({ amount: '4', revision: 1, cascade_run_id: null });
      const [{ count }] = await db.query(`SELECT count(*)::int AS count FROM cascade_runs WHERE source_id = $1`, [divisor.id]);
      expect(count).toBe(0);
    });

    it('refuses a key already active in its scope (409 ALREADY_EXISTS); the other scope may shadow it', async () => {
      await api.orgCost('dup_key', { amount: '1' });
      expect(expectError(await api.post('/v1/costs', { key: 'dup_key', amount: '2' }), 409, 'ALREADY_EXISTS').param).toBe('key');
      const product = await api.product({ name: 'Shadow' });
      const shadow = await api.productCost(product.id, 'dup_key', { amount: '3' });
      expect(shadow).toMatchObject({ scope: 'PRODUCT', key: 'dup_key', product_id: product.id });
      expectError(await api.post(`/v1/products/${product.id}/costs`, { key: 'dup_key', amount: '4' }), 409, 'ALREADY_EXISTS');
    });

    it('resolves keys by scope: ORG formulas see ORG keys only; a product sees its own costs, then ORG ones, never another product’s', async () => {
      const product = await api.product({ name: 'Scopes' });
      const other = await api.product({ name: 'Other scopes' });
      await api.productCost(product.id, 'scope_own', { amount: '3' });
      await api.productCost(other.id, 'scope_foreign', { amount: '5' });
      await api.orgCost('scope_org', { amount: '7' });
      const orgSeesProduct = expectError(
        await api.post('/v1/costs', { key: 'scope_org2', expression: 'scope_own + 1' }),
        422,
        'FORMULA_UNKNOWN_KEY',
      );
      expect(orgSeesProduct.details).toMatchObject({ keys: ['scope_own'] });
      const foreign = expectError(
        await api.post(`/v1/products/${product.id}/costs`, { key: 'scope_mix', expression: 'scope_foreign + scope_org' }),
        422,
        'FORMULA_UNKNOWN_KEY',
      );
      expect(foreign.details).toMatchObject({ keys: ['scope_foreign'] });
      const mixed = await api.productCost(product.id, 'scope_mix', { expression: 'scope_own * scope_org' });
      expect(mixed).toMatchObject({ amount: null, expression: 'scope_own * scope_org', value: '21' });
      expectError(await api.patch(`/v1/products/${other.id}`, { price_expression: 'scope_own' }), 422, 'FORMULA_UNKNOWN_KEY');
    });

    it('lets a formula’s key be removed from the draft, and refuses to publish the broken formula (409 PUBLISH_FORMULA_INVALID)', async () => {
      const product = await api.product({ name: 'Broken by removal' });
      const used = await api.productCost(product.id, 'removal_used', { amount: '2' });
      await api.patch(`/v1/products/${product.id}`, { price_expression: 'removal_used * 2' });
      await api.publish(product.id);
      expect((await api.delete(`/v1/costs/${used.id}`)).status).toBe(204);
      const draft = (await productOf(api, product.id)).draft_version.id;
      const refused = expectError(
        await api.post('/v1/changes', {
          operation: 'catalog.publish_version',
          subject_kind: 'product',
          subject_id: product.id,
          staged_version_id: draft,
        }),
        409,
        'PUBLISH_FORMULA_INVALID',
      );
      expect(refused.details).toEqual({ reason: 'unknown_key', keys: ['removal_used'] });
      expect((await productOf(api, product.id)).unit_price).toBe('4');
    });

    it('answers 404 for unknown ids and ids that are not UUIDs', async () => {
      const unknown = '0193a5c2-7f4e-7b1a-9c1d-2f0e4b5a6d07';
      for (const id of [unknown, 'not-a-uuid']) {
        expectError(await api.get(`/v1/costs/${id}`), 404, 'COST_NOT_FOUND');
        expectError(await api.patch(`/v1/costs/${id}`, { amount: '1' }), 404, 'COST_NOT_FOUND');
        expectError(await api.delete(`/v1/costs/${id}`), 404, 'COST_NOT_FOUND');
        expectError(await api.post(`/v1/costs/${id}/restore`), 404, 'COST_NOT_FOUND');
        expectError(await api.get(`/v1/costs/${id}/consumers`), 404, 'COST_NOT_FOUND');
        expectError(await api.post(`/v1/products/${id}/costs`, { key: 'k', amount: '1' }), 404, 'PRODUCT_NOT_FOUND');
      }
    });
  });

  describe('PRODUCT costs (model §3.4)', () => {
    it('hard-deletes a cost that was never released (404 after), with its revisions', async () => {
      const product = await api.product({ name: 'Never released' });
      const cost = await api.productCost(product.id, 'temp', { amount: '1' });
      expect(cost).toMatchObject({ scope: 'PRODUCT', status: 'active', released: false, revision: 1 });
      expect((await api.delete(`/v1/costs/${cost.id}`)).status).toBe(204);
      expectError(await api.get(`/v1/costs/${cost.id}`), 404, 'COST_NOT_FOUND');
      expectError(await api.delete(`/v1/costs/${cost.id}`), 404, 'COST_NOT_FOUND');
      expect(await revisions(cost.id)).toEqual([]);
      expect(await productCostsOf(api, product.id, 'view=draft')).toEqual([]);
    });

    it('remove of a released cost → removed_in_draft (GET 200, product list only); discard → active again', async () => {
      const product = await api.product({ name: 'Released' });
      const cost = await api.productCost(product.id, 'seat', { amount: '10' });
      await api.patch(`/v1/products/${product.id}`, { price_expression: 'seat * 2' });
      await api.publish(product.id);
      expect((await api.get(`/v1/costs/${cost.id}`)).body).toMatchObject({ status: 'active', released: true });

      expect((await api.delete(`/v1/costs/${cost.id}`)).status).toBe(204);
      const removed = await api.get(`/v1/costs/${cost.id}`);
      expect(removed.status).toBe(200);
      expect(removed.body).toMatchObject({ status: 'removed_in_draft', amount: '10', released: true });
      expect(await listed()).not.toContain(cost.id);
      expect((await productCostsOf(api, product.id)).map((row) => [row.id, row.status])).toEqual([[cost.id, 'removed_in_draft']]);
      expect(await productCostsOf(api, product.id, 'view=draft')).toEqual([]);
      expect((await productCostsOf(api, product.id, 'view=head')).map((row) => row.id)).toEqual([cost.id]);
      // Removing again changes nothing; a value edit needs an active cost; a display edit is allowed.
      expect((await api.delete(`/v1/costs/${cost.id}`)).status).toBe(204);
      expectError(await api.patch(`/v1/costs/${cost.id}`, { amount: '11' }), 409, 'COST_NOT_ACTIVE');
      const display = await api.patch(`/v1/costs/${cost.id}`, { description: 'Still billed' });
      expect(display.status).toBe(200);
      expect(display.body).toMatchObject({ status: 'removed_in_draft', description: 'Still billed' });

      expect((await api.delete(`/v1/products/${product.id}/draft`)).status).toBe(204);
      expect((await api.get(`/v1/costs/${cost.id}`)).body).toMatchObject({ status: 'active', amount: '10' });
      expect(await listed()).toContain(cost.id);
    });

    it('discard hard-deletes a cost created in that draft and never released', async () => {
      const product = await api.product({ name: 'Discarded cost' });
      await api.productCost(product.id, 'kept', { amount: '1' });
      await api.patch(`/v1/products/${product.id}`, { price_expression: 'kept' });
      await api.publish(product.id);
      const added = await api.productCost(product.id, 'added_in_draft', { amount: '2' });
      expect(added).toMatchObject({ status: 'active', released: false });
      expect((await api.delete(`/v1/products/${product.id}/draft`)).status).toBe(204);
      expectError(await api.get(`/v1/costs/${added.id}`), 404, 'COST_NOT_FOUND');
      expect(await revisions(added.id)).toEqual([]);
      // The key is free again.
      expect((await api.post(`/v1/products/${product.id}/costs`, { key: 'added_in_draft', amount: '3' })).status).toBe(201);
    });

    it('restore brings the head’s value back into the draft (staged value dropped); 409 once the removal is released', async () => {
      const product = await api.product({ name: 'Restore' });
      const cost = await api.productCost(product.id, 'rate', { amount: '5' });
      await api.patch(`/v1/products/${product.id}`, { price_expression: '1' });
      await api.publish(product.id);
      const staged = await api.patch(`/v1/costs/${cost.id}`, { amount: '7' });
      expect(staged.status).toBe(200);
      expect(staged.body).toMatchObject({ status: 'active', amount: '5', revision: 1 });
      expect((await productCostsOf(api, product.id, 'view=draft'))[0]).toMatchObject({ amount: '7', revision: 2 });
      expect((await api.delete(`/v1/costs/${cost.id}`)).status).toBe(204);
      const restored = await api.post(`/v1/costs/${cost.id}/restore`);
      expect(restored.status).toBe(200);
      expect(restored.body).toMatchObject({ id: cost.id, status: 'active', amount: '5', revision: 1 });
      expect((await productCostsOf(api, product.id, 'view=draft'))[0]).toMatchObject({ id: cost.id, amount: '5', revision: 1 });
      // Restoring an active cost changes nothing.
      expect((await api.post(`/v1/costs/${cost.id}/restore`)).status).toBe(200);

      // Release the removal: the cost leaves billing at that version (history only).
      expect((await api.delete(`/v1/costs/${cost.id}`)).status).toBe(204);
      await api.publish(product.id);
      const gone = await api.get(`/v1/costs/${cost.id}`);
      expect(gone.status).toBe(200);
      expect(gone.body).toMatchObject({ status: 'removed', released: false });
      expect(await listed()).not.toContain(cost.id);
      expect(await productCostsOf(api, product.id)).toEqual([]);
      expectError(await api.patch(`/v1/costs/${cost.id}`, { description: 'x' }), 409, 'COST_NOT_ACTIVE');
      expectError(await api.patch(`/v1/costs/${cost.id}`, { amount: '9' }), 409, 'COST_NOT_ACTIVE');
      const refused = expectError(await api.post(`/v1/costs/${cost.id}/restore`), 409, 'COST_KEY_NOT_IN_HEAD');
      expect(refused.details).toEqual({ key: 'rate' });
      // The published versions keep the key; the key is free for a new cost.
      const versions = (await api.get(`/v1/products/${product.id}/versions`)).body.data;
      expect(versions.find((row: any) => row.version === 1).costs.map((row: any) => row.key)).toEqual(['rate']);
      expect((await api.post(`/v1/products/${product.id}/costs`, { key: 'rate', amount: '6' })).status).toBe(201);
    });

    it('stages a value with effective_at as the draft’s not_before; a reverted edit is no edit', async () => {
      const product = await api.product({ name: 'Effective' });
      const cost = await api.productCost(product.id, 'unit', { amount: '2.50' });
      await api.patch(`/v1/products/${product.id}`, { price_expression: 'unit' });
      await api.publish(product.id);
      const at = new Date(clock.now().getTime() + 3 * HOUR);
      expect((await api.patch(`/v1/costs/${cost.id}`, { amount: '3', effective_at: at.toISOString() })).status).toBe(200);
      const draft = await api.get(`/v1/products/${product.id}/draft`);
      expect(draft.body).toMatchObject({ not_before: at.toISOString(), summary: { cost_values_changed: ['unit'] } });
      // Back to the live value ("2.5" equals "2.50"): the draft holds no edit.
      expect((await api.patch(`/v1/costs/${cost.id}`, { amount: '2.5' })).status).toBe(200);
      const reverted = await api.get(`/v1/products/${product.id}/draft`);
      expect(reverted.body.summary).toEqual({ fields_changed: [], costs_added: [], costs_removed: [], cost_values_changed: [] });
      expectError(
        await api.post('/v1/changes', {
          operation: 'catalog.publish_version',
          subject_kind: 'product',
          subject_id: product.id,
          staged_version_id: draft.body.id,
        }),
        409,
        'PUBLISH_NOTHING_STAGED',
      );
      expect((await productOf(api, product.id)).unit_price).toBe('2.5');
    });

    it('refuses staging edits on an archived product (409 ENTITY_ARCHIVED); display edits stay allowed', async () => {
      const product = await api.product({ name: 'Archived' });
      const cost = await api.productCost(product.id, 'arch', { amount: '1' });
      await api.patch(`/v1/products/${product.id}`, { price_expression: 'arch' });
      await api.publish(product.id);
      expect((await api.patch(`/v1/products/${product.id}`, { status: 'archived' })).status).toBe(200);
      expectError(await api.post(`/v1/products/${product.id}/costs`, { key: 'late', amount: '1' }), 409, 'ENTITY_ARCHIVED');
      expectError(await api.patch(`/v1/costs/${cost.id}`, { amount: '2' }), 409, 'ENTITY_ARCHIVED');
      expectError(await api.delete(`/v1/costs/${cost.id}`), 409, 'ENTITY_ARCHIVED');
      const display = await api.patch(`/v1/costs/${cost.id}`, { description: 'archived but described' });
      expect(display.status).toBe(200);
      expect(display.body).toMatchObject({ description: 'archived but described', amount: '1', status: 'active' });
    });

    it('lists the consumers: for a PRODUCT cost its product with the live version (or none)', async () => {
      const product = await api.product({ name: 'Consumed' });
      const cost = await api.productCost(product.id, 'own', { amount: '1' });
      const before = await api.get(`/v1/costs/${cost.id}/consumers`);
      expect(before.body).toEqual({
        data: [{ product_id: product.id, product_version_id: null, version: null }],
        pagination: { cursor: null, has_more: false },
      });
      await api.patch(`/v1/products/${product.id}`, { price_expression: 'own' });
      await api.publish(product.id);
      const live = await productOf(api, product.id);
      expect((await api.get(`/v1/costs/${cost.id}/consumers`)).body.data).toEqual([
        { product_id: product.id, product_version_id: live.live_version.id, version: 1 },
      ]);
    });
  });

  it('renders timestamps as RFC 3339 UTC', async () => {
    const cost = await api.orgCost('iso', { amount: '1' });
    for (const field of ['effective_at', 'created_at', 'updated_at']) expect(cost[field]).toMatch(ISO);
  });
});

import createClient from 'openapi-fetch';
import { AddressInfo } from 'node:net';
import type { paths } from '../support/generated/openapi';
import { createTenant, idem, TestTenant } from '../support/tenants';
import { createTestApp, TestApp } from '../support/test-app';

/** The system invoice template every organization can preview. */
const SYSTEM_INVOICE_TEMPLATE = '00000000-0000-4000-8000-000000000001';

/** The data of a successful call, else a failure that shows the status and error body the server answered. */
function ok<T>(result: { data?: T; error?: unknown; response: Response }): T {
  if (result.data === undefined) {
    throw new Error(`${result.response.status} ${result.response.url}: ${JSON.stringify(result.error)}`);
  }
  return result.data;
}

function present<T>(value: T | null | undefined, what: string): T {
  if (value === null || value === undefined) throw new Error(`${what} is missing`);
  return value;
}

/**
 * A client generated from the document (openapi-typescript → test/support/generated/openapi.d.ts,
 * openapi-fetch) drives a real server over HTTP through a customer → wallet → hold → capture →
 * product → plan → publish → template preview lifecycle. Every path, parameter, body and response
 * field below is typed by the document: a route, field or required header renamed in a DTO without
 * regenerating breaks `npm run typecheck`; regenerated, the code here no longer compiles; a
 * document that promises what the server does not answer fails the assertions.
 */
describe('Typed client generated from /openapi.json drives the server end to end', () => {
  let t: TestApp;
  let tenant: TestTenant;
  let client: ReturnType<typeof createClient<paths>>;

  beforeAll(async () => {
    t = await createTestApp();
    tenant = await createTenant(t);
    await t.app.listen(0, '127.0.0.1');
    const { port } = t.app.getHttpServer().address() as AddressInfo;
    client = createClient<paths>({ baseUrl: `http://127.0.0.1:${port}`, headers: { Authorization: tenant.auth } });
  });
  afterAll(() => t.close());

  it('customer → primary wallet → credit → hold → capture → product → plan with a membership → publish → template preview', async () => {
    // A customer is created with its primary wallet in its currency.
    const customer = ok(
      await client.POST('/v1/customers', {
        params: { header: { 'Idempotency-Key': idem() } },
        body: { name: 'Typed client GmbH', currency: 'EUR' },
      }),
    );
    // Field accesses, not toMatchObject: a renamed response field must fail to compile.
    expect([customer.object, customer.currency]).toEqual(['customer', 'EUR']);
    const wallets = ok(await client.GET('/v1/wallets', { params: { query: { customer_id: customer.id } } }));
    expect(wallets.data.map((wallet) => wallet.id)).toEqual([customer.primary_wallet_id]);
    const walletId = wallets.data[0].id;

    const credit = ok(
      await client.POST('/v1/wallets/{id}/credit', {
        params: { path: { id: walletId }, header: { 'Idempotency-Key': idem() } },
        body: { amount: '100.00', reference: 'typed-client-credit' },
      }),
    );
    expect([credit.wallet_id, credit.amount]).toEqual([walletId, '100.00']);

    const hold = ok(
      await client.POST('/v1/wallets/{id}/holds', {
        params: { path: { id: walletId }, header: { 'Idempotency-Key': idem() } },
        body: { amount: '40.00', reason: 'Usage reservation' },
      }),
    );
    expect([hold.object, hold.status, hold.amount]).toEqual(['wallet_hold', 'pending', '40.00']);
    const captured = ok(
      await client.POST('/v1/wallets/{id}/holds/{hold_id}/capture', {
        params: { path: { id: walletId, hold_id: hold.id }, header: { 'Idempotency-Key': idem() } },
        body: { amount: '25.00' },
      }),
    );
    expect([captured.id, captured.status]).toEqual([hold.id, 'captured']);
    const wallet = ok(await client.GET('/v1/wallets/{id}', { params: { path: { id: walletId } } }));
    expect([wallet.cash_balance, wallet.held_balance, wallet.available_balance]).toEqual(['75.00', '0.00', '75.00']);

    // The catalog: an ORG cost, a product priced by it and published, a plan holding the product.
    const cost = ok(
      await client.POST('/v1/costs', {
        params: { header: { 'Idempotency-Key': idem() } },
        body: { key: 'seat_rate', amount: '12.50' },
      }),
    );
    expect(cost.key).toBe('seat_rate');
    const product = ok(
      await client.POST('/v1/products', {
        params: { header: { 'Idempotency-Key': idem() } },
        body: { name: 'Seats', price_expression: 'seat_rate * 2' },
      }),
    );
    const productChange = ok(
      await client.POST('/v1/changes', {
        params: { header: { 'Idempotency-Key': idem() } },
        body: {
          operation: 'catalog.publish_version',
          subject_kind: 'product',
          subject_id: product.id,
          staged_version_id: present(product.draft_version, 'the new product’s working draft').id,
        },
      }),
    );
    expect(productChange.subject_id).toBe(product.id);

    const plan = ok(
      await client.POST('/v1/plans', { params: { header: { 'Idempotency-Key': idem() } }, body: { name: 'Growth' } }),
    );
    ok(
      await client.POST('/v1/plans/{id}/products', {
        params: { path: { id: plan.id }, header: { 'Idempotency-Key': idem() } },
        body: { product_id: product.id },
      }),
    );
    const draft = ok(await client.GET('/v1/plans/{id}', { params: { path: { id: plan.id } } }));
    const planChange = ok(
      await client.POST('/v1/changes', {
        params: { header: { 'Idempotency-Key': idem() } },
        body: {
          operation: 'catalog.publish_version',
          subject_kind: 'plan',
          subject_id: plan.id,
          staged_version_id: present(draft.draft_version, 'the plan’s working draft').id,
        },
      }),
    );
    expect(planChange.subject_id).toBe(plan.id);
    const live = ok(await client.GET('/v1/plans/{id}', { params: { path: { id: plan.id } } }));
    expect(live.status).toBe('active');

    // A document template preview: the PDF of the system invoice layout.
    const preview = await client.POST('/v1/document_templates/{id}/preview', {
      params: { path: { id: SYSTEM_INVOICE_TEMPLATE } },
      body: {},
      parseAs: 'arrayBuffer',
    });
    expect(preview.response.status).toBe(200);
    expect(preview.response.headers.get('content-type')).toMatch(/^application\/pdf/);
    expect(Buffer.from(ok(preview)).subarray(0, 5).toString('latin1')).toBe('%PDF-');
  });

  it('types the error answers too: an unknown wallet is the documented 404 body', async () => {
    const missing = await client.GET('/v1/wallets/{id}', { params: { path: { id: '0193a5c2-7f4e-7b1a-9c1d-2f0e4b5a6d99' } } });
    expect(missing.response.status).toBe(404);
    expect(missing.error?.error.code).toBe('WALLET_NOT_FOUND');
  });
});

import { randomUUID } from 'node:crypto';
import * as api from './generated/billing-client';
import { type Client, createClient } from './generated/billing-client/client';

/**
 * A newcomer's first journey, through nothing but the client @hey-api/openapi-ts generates from
 * /openapi.json (test/support/generated/billing-client): customer → wallet → credit → hold →
 * cost → product → publish → plan → publish → preview. It imports no application code, so it
 * type-checks against the generated client alone, as an integrator's code would.
 */

/** What the journey saw, for the test to assert on. */
export interface BillingFlowOutcome {
  customerId: string;
  wallet: { currency: string; cashBalance: string; heldBalance: string; availableBalance: string };
  holdStatus: string;
  productStatus: string;
  productChangeStatus: string;
  planChangeStatus: string;
  planLiveVersion: number | undefined;
  pdf: Uint8Array;
  pdfMediaType: string | null;
  html: string;
}

interface Result<T> {
  data?: T;
  error?: unknown;
  response?: Response;
}

/** The answer's body when its status is the expected one; the error body in the message otherwise. */
function expectStatus<T>(step: string, status: number, result: Result<T>): T {
  if (result.response?.status !== status || result.data === undefined) {
    throw new Error(
      `${step}: expected ${status}, got ${result.response?.status}: ${JSON.stringify(result.error ?? result.data)}`,
    );
  }
  return result.data;
}

const idempotent = () => ({ 'Idempotency-Key': randomUUID() });

export function billingClient(baseUrl: string, token: string): Client {
  // The document declares bearer security: the client sends `Authorization: Bearer <token>` itself.
  return createClient({ baseUrl, auth: () => token });
}

export async function driveBillingFlow(client: Client): Promise<BillingFlowOutcome> {
  const customer = expectStatus(
    'createCustomer',
    201,
    await api.createCustomer({ client, headers: idempotent(), body: { name: 'Client Flow GmbH', currency: 'EUR' } }),
  );
  const walletId = { id: customer.primary_wallet_id };
  const opened = expectStatus('getWallet', 200, await api.getWallet({ client, path: walletId }));
  expectStatus(
    'creditWallet',
    200,
    await api.creditWallet({
      client,
      path: walletId,
      headers: idempotent(),
      body: { amount: '100.00', currency: opened.currency, source: 'PAYMENT', reference: `flow-${randomUUID()}` },
    }),
  );
  const hold = expectStatus(
    'createWalletHold',
    201,
    await api.createWalletHold({
      client,
      path: walletId,
      headers: idempotent(),
      body: { amount: '25.00', reason: 'Usage reserve' },
    }),
  );
  const wallet = expectStatus('getWallet', 200, await api.getWallet({ client, path: walletId }));

  const costKey = `seat_${randomUUID().slice(0, 8)}`;
  expectStatus(
    'createCost',
    201,
    await api.createCost({ client, headers: idempotent(), body: { key: costKey, amount: '9.50' } }),
  );
  const product = expectStatus(
    'createProduct',
    201,
    await api.createProduct({ client, headers: idempotent(), body: { name: 'Seats', price_expression: `${costKey} * 2` } }),
  );
  const productChange = expectStatus(
    'createChange (product)',
    201,
    await api.createChange({
      client,
      headers: idempotent(),
      body: {
        operation: 'catalog.publish_version',
        subject_kind: 'product',
        subject_id: product.id,
        staged_version_id: product.draft_version!.id,
      },
    }),
  );
  const liveProduct = expectStatus('getProduct', 200, await api.getProduct({ client, path: { id: product.id } }));

  const plan = expectStatus('createPlan', 201, await api.createPlan({ client, headers: idempotent(), body: { name: 'Growth' } }));
  expectStatus(
    'addPlanProduct',
    201,
    await api.addPlanProduct({ client, path: { id: plan.id }, headers: idempotent(), body: { product_id: product.id } }),
  );
  const staged = expectStatus('getPlan', 200, await api.getPlan({ client, path: { id: plan.id } }));
  const planChange = expectStatus(
    'createChange (plan)',
    201,
    await api.createChange({
      client,
      headers: idempotent(),
      body: {
        operation: 'catalog.publish_version',
        subject_kind: 'plan',
        subject_id: plan.id,
        staged_version_id: staged.draft_version!.id,
      },
    }),
  );
  const livePlan = expectStatus('getPlan', 200, await api.getPlan({ client, path: { id: plan.id } }));

  const templates = expectStatus(
    'listDocumentTemplates',
    200,
    await api.listDocumentTemplates({ client, query: { document_type: 'invoice' } }),
  );
  const invoice = templates.data.find((template) => template.is_system);
  if (!invoice) throw new Error('listDocumentTemplates: no system invoice template');
  const pdfResult = await api.previewDocumentTemplate({ client, path: { id: invoice.id }, query: { format: 'pdf' }, body: {} });
  const pdf = expectStatus('previewDocumentTemplate (pdf)', 200, pdfResult);
  const html = expectStatus(
    'previewDocumentTemplate (html)',
    200,
    await api.previewDocumentTemplate({ client, path: { id: invoice.id }, query: { format: 'html' }, body: {} }),
  );

  return {
    customerId: customer.id,
    wallet: {
      currency: wallet.currency,
      cashBalance: wallet.cash_balance,
      heldBalance: wallet.held_balance,
      availableBalance: wallet.available_balance,
    },
    holdStatus: hold.status,
    productStatus: liveProduct.status,
    productChangeStatus: productChange.status,
    planChangeStatus: planChange.status,
    planLiveVersion: livePlan.live_version?.version,
    pdf: pdf instanceof Blob ? new Uint8Array(await pdf.arrayBuffer()) : new TextEncoder().encode(String(pdf)),
    pdfMediaType: pdfResult.response!.headers.get('content-type'),
    html: typeof html === 'string' ? html : await html.text(),
  };
}

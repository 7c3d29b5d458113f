import { AUTO_TOP_UP_JOB } from '@app/billing-wallet';
import { JobQueue } from '@app/shared-kernel';
import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { SandboxPaymentProvider } from '../../libs/billing-wallet/src/infrastructure/sandbox-payment-provider';
import { createKey, createTenant, signIn, TestTenant } from '../support/tenants';
import { createTestApp, TestApp, TEST_APP_SECRET } from '../support/test-app';
import { expectWalletError, WalletClient } from '../support/wallet-helpers';

jest.setTimeout(60_000);

/** Top-ups and payment methods: what a request or a stored setting names, limits, refunds, providers. */
describe('Top-ups and payment methods', () => {
  let t: TestApp;
  let db: DataSource;
  let sandbox: SandboxPaymentProvider;
  let a: TestTenant;
  let b: TestTenant;
  let apiA: WalletClient;
  let apiB: WalletClient;

  beforeAll(async () => {
    t = await createTestApp();
    db = t.app.get(DataSource);
    sandbox = t.app.get(SandboxPaymentProvider);
    a = await createTenant(t);
    b = await createTenant(t);
    apiA = new WalletClient(t, a.auth);
    apiB = new WalletClient(t, b.auth);
  });
  afterAll(() => t.close());
  afterEach(() => jest.restoreAllMocks());

  async function card(api: WalletClient, customerId: string, token = 'pm_card_visa'): Promise<string> {
    const response = await api.post(`/v1/customers/${customerId}/payment_methods`, { token });
    expect(response.status).toBe(201);
    return response.body.id;
  }

  async function autoTopUps(walletId: string): Promise<any[]> {
    return db.query(
      `SELECT status, failure_code, provider_reference, transaction_id FROM wallet_top_ups WHERE wallet_id = $1 AND automatic ORDER BY id`,
      [walletId],
    );
  }

  async function paymentCredits(walletId: string): Promise<number> {
    const [{ count }] = await db.query(
      `SELECT count(*)::int AS count FROM wallet_transactions WHERE wallet_id = $1 AND source = 'PAYMENT'`,
      [walletId],
    );
    return count;
  }

  /** Takes the wallet from above its threshold to below it, then runs the automatic top-up the debit started. */
  async function crossThreshold(api: WalletClient, walletId: string): Promise<void> {
    await api.ok(walletId, 'credit', { amount: '30.00' });
    await api.ok(walletId, 'debit', { amount: '25.00' });
    const [pending] = await db.query(
      `SELECT id FROM wallet_top_ups WHERE wallet_id = $1 AND automatic ORDER BY id DESC LIMIT 1`,
      [walletId],
    );
    expect(pending).toBeDefined();
    await t.app.get(JobQueue).runNow(AUTO_TOP_UP_JOB, { topUpId: pending.id });
  }

  describe('a payment method named by a body or a stored setting', () => {
    it('is refused on write unless it is a method of the wallet’s own customer: 404 PAYMENT_METHOD_NOT_FOUND', async () => {
      const mine = await apiB.customerWithWallet('EUR', 'B GmbH');
      const neighbour = await apiB.customerWithWallet('EUR', 'B Neighbour GmbH');
      const theirs = await apiA.customerWithWallet('EUR', 'A GmbH');
      const foreignCard = await card(apiA, theirs.customer.id);
      const neighbourCard = await card(apiB, neighbour.customer.id);
      const before = await apiB.wallet(mine.wallet.id);
      for (const id of [foreignCard, neighbourCard, 'pm_made_up_card_visa', randomUUID()]) {
        const settings = { auto_topup_enabled: true, auto_topup_amount: '500.00', low_balance_threshold: '10.00' };
        const patched = await apiB.patch(`/v1/wallets/${mine.wallet.id}`, { ...settings, auto_topup_payment_method_id: id });
        expect(expectWalletError(patched, 404, 'PAYMENT_METHOD_NOT_FOUND').param).toBe('auto_topup_payment_method_id');
      }
      expect(await apiB.wallet(mine.wallet.id)).toEqual(before);
      // The customer's own card is taken.
      const own = await card(apiB, mine.customer.id);
      const accepted = await apiB.patch(`/v1/wallets/${mine.wallet.id}`, { auto_topup_payment_method_id: own });
      expect([accepted.status, accepted.body.auto_topup_payment_method_id]).toEqual([200, own]);
    });

    it('is resolved again when used: a stored method that no longer resolves fails the automatic top-up, uncharged', async () => {
      const victim = await apiA.customerWithWallet('EUR', 'A Victim GmbH');
      const foreignCard = await card(apiA, victim.customer.id);
      const { wallet } = await apiB.customerWithWallet('EUR', 'B Thief GmbH');
      const own = await card(apiB, (await apiB.wallet(wallet.id)).customer_id);
      const enabled = await apiB.patch(`/v1/wallets/${wallet.id}`, {
        auto_topup_enabled: true,
        auto_topup_amount: '500.00',
        low_balance_threshold: '10.00',
        auto_topup_payment_method_id: own,
      });
      expect(enabled.status).toBe(200);
      // A setting stored before references were checked (or whose method moved away since).
      await db.query('UPDATE wallets SET auto_topup_payment_method_id = $2 WHERE id = $1', [wallet.id, foreignCard]);
      const charge = jest.spyOn(sandbox, 'chargeOffSession');
      await crossThreshold(apiB, wallet.id);
      expect(charge).not.toHaveBeenCalled();
      expect(await autoTopUps(wallet.id)).toEqual([
        { status: 'failed', failure_code: 'payment_method_not_found', provider_reference: null, transaction_id: null },
      ]);
      expect(await paymentCredits(wallet.id)).toBe(1);
      expect((await apiB.wallet(wallet.id)).available_balance).toBe('5.00');
    });

    it('still charges the customer’s own stored method', async () => {
      const { customer, wallet } = await apiB.customerWithWallet('EUR', 'B Honest GmbH');
      const own = await card(apiB, customer.id);
      await apiB.patch(`/v1/wallets/${wallet.id}`, {
        auto_topup_enabled: true,
        auto_topup_amount: '50.00',
        low_balance_threshold: '10.00',
        auto_topup_payment_method_id: own,
      });
      await crossThreshold(apiB, wallet.id);
      expect(await autoTopUps(wallet.id)).toEqual([
        {
          status: 'succeeded',
          failure_code: null,
          provider_reference: expect.stringMatching(/^ch_sandbox_/),
          transaction_id: expect.any(String),
        },
      ]);
      expect((await apiB.wallet(wallet.id)).available_balance).toBe('55.00');
    });

    it('is refused for an off_session top-up of another tenant’s or a made-up method: 404, nothing charged', async () => {
      const { wallet } = await apiB.customerWithWallet('EUR', 'B Direct GmbH');
      const foreignCard = await card(apiA, (await apiA.customerWithWallet('EUR', 'A Direct GmbH')).customer.id);
      const charge = jest.spyOn(sandbox, 'chargeOffSession');
      for (const id of [foreignCard, 'pm_made_up_card_visa']) {
        const response = await apiB.post(`/v1/wallets/${wallet.id}/top_ups`, {
          mode: 'off_session',
          amount: '10.00',
          payment_method_id: id,
        });
        expect(expectWalletError(response, 404, 'PAYMENT_METHOD_NOT_FOUND').param).toBe('payment_method_id');
      }
      expect(charge).not.toHaveBeenCalled();
    });
  });

  describe('limits', () => {
    it('refuses a top-up beyond max_single_credit or max_balance when it is created: 422 LIMIT_EXCEEDED, nothing stored or charged', async () => {
      const { customer, wallet } = await apiB.customerWithWallet('EUR', 'B Limited GmbH');
      const own = await card(apiB, customer.id);
      const limited = await apiB.patch(`/v1/wallets/${wallet.id}`, { max_single_credit: '10.00', max_balance: '30.00' });
      expect([limited.status, limited.body.max_single_credit, limited.body.max_balance]).toEqual([200, '10.00', '30.00']);
      for (const amount of ['10.00', '10.00', '5.00']) await apiB.ok(wallet.id, 'credit', { amount });
      const charge = jest.spyOn(sandbox, 'chargeOffSession');
      const checkout = jest.spyOn(sandbox, 'openCheckout');
      const cases = [
        [{ mode: 'hosted_checkout', amount: '25.00' }, 'max_single_credit'],
        [{ mode: 'off_session', amount: '25.00', payment_method_id: own }, 'max_single_credit'],
        [{ mode: 'hosted_checkout', amount: '10.01' }, 'max_single_credit'],
        [{ mode: 'hosted_checkout', amount: '10.00' }, 'max_balance'],
        [{ mode: 'off_session', amount: '10.00', payment_method_id: own }, 'max_balance'],
      ] as const;
      for (const [body, limit] of cases) {
        const response = await apiB.post(`/v1/wallets/${wallet.id}/top_ups`, body);
        expect({ body, details: expectWalletError(response, 422, 'LIMIT_EXCEEDED').details }).toEqual({
          body,
          details: expect.objectContaining({ limit }),
        });
      }
      expect(charge).not.toHaveBeenCalled();
      expect(checkout).not.toHaveBeenCalled();
      const [{ count }] = await db.query(`SELECT count(*)::int AS count FROM wallet_top_ups WHERE wallet_id = $1`, [wallet.id]);
      expect(count).toBe(0);
      // Up to both limits exactly, it goes through.
      const fits = await apiB.post(`/v1/wallets/${wallet.id}/top_ups`, {
        mode: 'off_session',
        amount: '5.00',
        payment_method_id: own,
      });
      expect([fits.status, fits.body.status]).toEqual([201, 'succeeded']);
    });

    it('acknowledges a paid checkout the wallet can no longer take, refunds it through the provider and fails the top-up', async () => {
      const { wallet } = await apiB.customerWithWallet('EUR', 'B Refunded GmbH');
      await apiB.patch(`/v1/wallets/${wallet.id}`, { max_balance: '20.00' });
      const created = await apiB.post(`/v1/wallets/${wallet.id}/top_ups`, { mode: 'hosted_checkout', amount: '8.00' });
      expect(created.status).toBe(201);
      // The balance moved between the checkout and its payment.
      await apiB.ok(wallet.id, 'credit', { amount: '15.00' });
      const { body, signature } = sandbox.signedEvent({
        id: `evt_${randomUUID()}`,
        type: 'top_up.succeeded',
        topUpId: created.body.id,
        providerReference: 'ch_paid_at_the_provider',
      });
      const send = () =>
        t.http
          .post('/v1/webhooks/payments/sandbox')
          .set('Content-Type', 'application/json')
          .set('Billing-Signature', signature)
          .send(body);
      const delivered = await send();
      expect([delivered.status, delivered.body]).toEqual([200, { received: true, duplicate: false }]);
      const [topUp] = await db.query(
        `SELECT status, failure_code, failure_message, provider_reference, transaction_id, completed_at FROM wallet_top_ups WHERE id = $1`,
        [created.body.id],
      );
      expect(topUp).toEqual({
        status: 'failed',
        failure_code: 'limit_exceeded',
        failure_message: expect.stringMatching(/max_balance.*refunded/),
        provider_reference: 'ch_paid_at_the_provider',
        transaction_id: null,
        completed_at: expect.any(Date),
      });
      expect(sandbox.refunds.filter((refund) => refund.providerReference === 'ch_paid_at_the_provider')).toEqual([
        expect.objectContaining({ amount: '8.00', currency: 'EUR', refundReference: expect.stringMatching(/^re_sandbox_/) }),
      ]);
      const audit = await db.query(`SELECT action, data FROM audit_events WHERE resource_id = $1 ORDER BY occurred_at, id`, [
        created.body.id,
      ]);
      expect(audit.map((row: { action: string }) => row.action)).toEqual([
        'wallet_top_up.created',
        'wallet_top_up.refunded',
        'wallet_top_up.failed',
      ]);
      expect(audit[1].data).toEqual(expect.objectContaining({ provider_reference: 'ch_paid_at_the_provider', amount: '8.00' }));
      expect((await apiB.wallet(wallet.id)).available_balance).toBe('15.00');
      const [{ count }] = await db.query(`SELECT count(*)::int AS count FROM payment_webhook_events WHERE payload = $1`, [body]);
      expect(count).toBe(1);
      // The provider's retry changes nothing and refunds nothing twice.
      expect((await send()).body).toEqual({ received: true, duplicate: true });
      expect(sandbox.refunds.filter((refund) => refund.providerReference === 'ch_paid_at_the_provider')).toHaveLength(1);
    });

    it('refunds a payment that succeeds after its top-up was reported failed; the top-up stays failed', async () => {
      const { wallet } = await apiB.customerWithWallet('EUR', 'B Late GmbH');
      const created = await apiB.post(`/v1/wallets/${wallet.id}/top_ups`, { mode: 'hosted_checkout', amount: '6.00' });
      expect(created.status).toBe(201);
      const deliver = (type: 'top_up.succeeded' | 'top_up.failed') => {
        const { body, signature } = sandbox.signedEvent({
          id: `evt_${randomUUID()}`,
          type,
          topUpId: created.body.id,
          providerReference: 'ch_paid_late',
          failureCode: type === 'top_up.failed' ? 'expired' : undefined,
        });
        return t.http
          .post('/v1/webhooks/payments/sandbox')
          .set('Content-Type', 'application/json')
          .set('Billing-Signature', signature)
          .send(body);
      };
      expect((await deliver('top_up.failed')).status).toBe(200);
      expect((await deliver('top_up.succeeded')).body).toEqual({ received: true, duplicate: false });
      const [topUp] = await db.query(`SELECT status, failure_code FROM wallet_top_ups WHERE id = $1`, [created.body.id]);
      expect(topUp).toEqual({ status: 'failed', failure_code: 'expired' });
      expect(sandbox.refunds.filter((refund) => refund.topUpId === created.body.id)).toEqual([
        expect.objectContaining({ providerReference: 'ch_paid_late', amount: '6.00' }),
      ]);
      expect((await apiB.wallet(wallet.id)).available_balance).toBe('0.00');
    });

    it('checks an automatic top-up’s limits before charging: beyond them it fails uncharged', async () => {
      const { customer, wallet } = await apiB.customerWithWallet('EUR', 'B Auto Limited GmbH');
      const own = await card(apiB, customer.id);
      await apiB.patch(`/v1/wallets/${wallet.id}`, {
        auto_topup_enabled: true,
        auto_topup_amount: '50.00',
        low_balance_threshold: '10.00',
        auto_topup_payment_method_id: own,
        max_single_credit: '40.00',
      });
      const charge = jest.spyOn(sandbox, 'chargeOffSession');
      await crossThreshold(apiB, wallet.id);
      expect(charge).not.toHaveBeenCalled();
      expect(await autoTopUps(wallet.id)).toEqual([
        { status: 'failed', failure_code: 'limit_exceeded', provider_reference: null, transaction_id: null },
      ]);
    });
  });

  describe('in production', () => {
    let prod: TestApp;
    let tenant: TestTenant;
    let live: WalletClient;
    let sandboxed: WalletClient;

    beforeAll(async () => {
      prod = await createTestApp({ env: { NODE_ENV: 'production', APP_SECRET: TEST_APP_SECRET } });
      tenant = await createTenant(prod, { withOwner: true });
      live = new WalletClient(prod, tenant.auth);
      const session = await signIn(prod, tenant.owner!.email, tenant.owner!.password);
      const scopes = ['customers:read', 'customers:write', 'wallets:read', 'wallets:write'];
      const key = await createKey(prod, session, { name: 'sandbox payments', scopes }, { 'X-Workspace-Id': 'sandbox' });
      sandboxed = new WalletClient(prod, `Bearer ${key.secret}`);
    });
    afterAll(() => prod.close());

    it('refuses live payments without a real provider: 503 PAYMENT_PROVIDER_NOT_CONFIGURED, test cards never pay', async () => {
      const { customer, wallet } = await live.customerWithWallet('EUR', 'Live GmbH');
      const charge = jest.spyOn(prod.app.get(SandboxPaymentProvider), 'chargeOffSession');
      expectWalletErrorStatus(await live.post(`/v1/customers/${customer.id}/payment_methods`, { token: 'pm_card_visa' }));
      expectWalletErrorStatus(await live.post(`/v1/wallets/${wallet.id}/top_ups`, { mode: 'hosted_checkout', amount: '10.00' }));
      // A card saved before the provider was unbound.
      const db = prod.app.get(DataSource);
      await db.query(
        `INSERT INTO payment_methods (organization_id, workspace_id, id, customer_id, provider, brand, last4, created_at)
         VALUES ($1, $2, 'pm_legacy_card_visa', $3, 'sandbox', 'visa', '4242', now())`,
        [tenant.organization_id, tenant.liveWorkspaceId, customer.id],
      );
      expectWalletErrorStatus(
        await live.post(`/v1/wallets/${wallet.id}/top_ups`, {
          mode: 'off_session',
          amount: '10.00',
          payment_method_id: 'pm_legacy_card_visa',
        }),
      );
      // Automatic top-ups fail with the reason instead of charging.
      const enabled = await live.patch(`/v1/wallets/${wallet.id}`, {
        auto_topup_enabled: true,
        auto_topup_amount: '50.00',
        low_balance_threshold: '10.00',
        auto_topup_payment_method_id: 'pm_legacy_card_visa',
      });
      expect(enabled.status).toBe(200);
      await live.ok(wallet.id, 'credit', { amount: '30.00' });
      await live.ok(wallet.id, 'debit', { amount: '25.00' });
      const [pending] = await db.query(`SELECT id FROM wallet_top_ups WHERE wallet_id = $1 AND automatic`, [wallet.id]);
      await prod.app.get(JobQueue).runNow(AUTO_TOP_UP_JOB, { topUpId: pending.id });
      const rows = await db.query(`SELECT status, failure_code FROM wallet_top_ups WHERE wallet_id = $1`, [wallet.id]);
      expect(rows).toEqual([{ status: 'failed', failure_code: 'payment_provider_not_configured' }]);
      expect(charge).not.toHaveBeenCalled();
      expect((await live.wallet(wallet.id)).available_balance).toBe('5.00');
    });

    it('keeps the sandbox adapter for sandbox workspaces', async () => {
      const { customer, wallet } = await sandboxed.customerWithWallet('EUR', 'Sandbox GmbH');
      const method = await sandboxed.post(`/v1/customers/${customer.id}/payment_methods`, { token: 'pm_card_visa' });
      expect([method.status, method.body.provider]).toEqual([201, 'sandbox']);
      const topUp = await sandboxed.post(`/v1/wallets/${wallet.id}/top_ups`, {
        mode: 'off_session',
        amount: '10.00',
        payment_method_id: method.body.id,
      });
      expect([topUp.status, topUp.body.status]).toEqual([201, 'succeeded']);
    });

    function expectWalletErrorStatus(response: { status: number; body: any }): void {
      expect({ status: response.status, code: response.body?.error?.code, type: response.body?.error?.type }).toEqual({
        status: 503,
        code: 'PAYMENT_PROVIDER_NOT_CONFIGURED',
        type: 'api_error',
      });
    }
  });
});

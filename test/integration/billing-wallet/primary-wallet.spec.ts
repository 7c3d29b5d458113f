import { TransactionHost } from '@nestjs-cls/transactional';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import { CreateWalletCommand } from '@app/billing-wallet';
import { AuthenticateRequestQuery, CreateCustomerCommand } from '@app/identity';
import { Actor, newId } from '@app/shared-kernel';
import { DataSource } from 'typeorm';
import { PrimaryWalletForEveryCustomer1763800700000 } from '../../../libs/billing-wallet/src/infrastructure/migrations/1763800700000-primary-wallet-for-every-customer';
import { createTestApp, TestApp } from '../../support/test-app';
import { createTenant } from '../../support/tenants';

describe('Primary wallet opened with its customer (CustomerWallets port)', () => {
  let t: TestApp;
  let db: DataSource;
  let actor: Actor;

  beforeAll(async () => {
    t = await createTestApp();
    db = t.app.get(DataSource);
    const tenant = await createTenant(t);
    actor = await t.app.get(QueryBus).execute(new AuthenticateRequestQuery(tenant.auth, '127.0.0.1', undefined));
  });
  afterAll(() => t.close());

  function createCustomer(externalId: string, currency = 'USD') {
    return t.app.get(CommandBus).execute(new CreateCustomerCommand(actor, { name: 'With wallet', currency, externalId }));
  }

  it('opens the primary wallet in the customer’s currency and names it; the same principal is audited', async () => {
    const customer = await createCustomer('opened', 'JPY');
    const wallets = await db.query('SELECT id, currency, is_primary, created_at FROM wallets WHERE customer_id = $1', [
      customer.id,
    ]);
    expect(wallets).toEqual([
      { id: customer.primaryWalletId, currency: 'JPY', is_primary: true, created_at: customer.createdAt },
    ]);
    const audited = await db.query(
      `SELECT action, principal_type, principal_id, data FROM audit_events WHERE resource_id = ANY ($1::text[]) ORDER BY action`,
      [[customer.id, customer.primaryWalletId]],
    );
    expect(audited).toEqual([
      { action: 'customer.created', principal_type: 'api_key', principal_id: actor.principal.id, data: {} },
      {
        action: 'wallet.created',
        principal_type: 'api_key',
        principal_id: actor.principal.id,
        data: { currency: 'JPY', primary: true },
      },
    ]);
  });

  it('joins the caller’s transaction: when it rolls back, neither the customer nor its wallet remains', async () => {
    let customerId: string | undefined;
    await expect(
      t.app.get(TransactionHost).withTransaction(async () => {
        customerId = (await createCustomer('rolled-back')).id;
        throw new Error('the enclosing unit of work fails after the customer was created');
      }),
    ).rejects.toThrow('the enclosing unit of work fails');
    expect(customerId).toBeDefined();
    const [{ customers, wallets }] = await db.query(
      `SELECT (SELECT count(*)::int FROM customers WHERE id = $1) AS customers,
              (SELECT count(*)::int FROM wallets WHERE customer_id = $1) AS wallets`,
      [customerId],
    );
    expect({ customers, wallets }).toEqual({ customers: 0, wallets: 0 });
  });

  describe('the upgrade (migration 1763800700000)', () => {
    /** A customer as the old subscriber could leave it at the upgrade: committed, its wallet not yet opened. */
    async function customerWithoutWallet(currency: string): Promise<{ id: string; created_at: Date }> {
      const [row] = await db.query(
        `INSERT INTO customers (organization_id, workspace_id, id, name, currency, created_at)
         VALUES ($1, $2, $3, 'Waiting for its event', $4, now() - interval '1 hour') RETURNING id, created_at`,
        [actor.organizationId, actor.workspaceId, newId(), currency],
      );
      return row;
    }

    async function upgrade(): Promise<void> {
      const runner = db.createQueryRunner();
      try {
        await new PrimaryWalletForEveryCustomer1763800700000().up(runner);
      } finally {
        await runner.release();
      }
    }

    async function walletsOf(customerId: string) {
      return db.query('SELECT id, currency, is_primary, created_at FROM wallets WHERE customer_id = $1 ORDER BY id', [
        customerId,
      ]);
    }

    it('opens the missing primary wallets, promotes a wallet of the customer’s currency, and touches nothing else', async () => {
      const waiting = await customerWithoutWallet('CHF');
      const withSecondary = await customerWithoutWallet('EUR');
      const secondary = await t.app
        .get(CommandBus)
        .execute(new CreateWalletCommand(actor, { customerId: withSecondary.id, currency: 'EUR', settings: {} }));
      const other = await t.app
        .get(CommandBus)
        .execute(new CreateWalletCommand(actor, { customerId: withSecondary.id, currency: 'USD', settings: {} }));
      const settled = await createCustomer('settled', 'GBP');
      const settledBefore = await walletsOf(settled.id);

      await upgrade();
      const [opened] = await walletsOf(waiting.id);
      expect(await walletsOf(waiting.id)).toEqual([
        { id: expect.any(String), currency: 'CHF', is_primary: true, created_at: waiting.created_at },
      ]);
      const audited = await db.query(
        `SELECT action, principal_type, principal_id, data FROM audit_events WHERE resource_id = $1`,
        [opened.id],
      );
      expect(audited).toEqual([
        { action: 'wallet.created', principal_type: 'system', principal_id: null, data: { currency: 'CHF', primary: true } },
      ]);
      expect(
        (await walletsOf(withSecondary.id)).map(({ id, is_primary }: { id: string; is_primary: boolean }) => ({
          id,
          is_primary,
        })),
      ).toEqual(
        [
          { id: secondary.id, is_primary: true },
          { id: other.id, is_primary: false },
        ].sort((a, b) => a.id.localeCompare(b.id)),
      );
      expect(await walletsOf(settled.id)).toEqual(settledBefore);

      const everything = await db.query('SELECT id, is_primary, version FROM wallets ORDER BY id');
      await upgrade();
      expect(await db.query('SELECT id, is_primary, version FROM wallets ORDER BY id')).toEqual(everything);
    });
  });
});

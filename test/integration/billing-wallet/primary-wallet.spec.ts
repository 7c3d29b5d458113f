import { TransactionHost } from '@nestjs-cls/transactional';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import { AuthenticateRequestQuery, CreateCustomerCommand } from '@app/identity';
import { Actor } from '@app/shared-kernel';
import { DataSource } from 'typeorm';
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
});

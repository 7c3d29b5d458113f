import { TransactionHost } from '@nestjs-cls/transactional';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import { CreateWalletCommand } from '@app/billing-wallet';
import { AuthenticateRequestQuery, CustomerCreated } from '@app/identity';
import { newId } from '@app/shared-kernel';
import { DataSource } from 'typeorm';
import { PrimaryWalletOnCustomerCreated } from '../../../libs/billing-wallet/src/application/primary-wallet.subscriber';
import { createTestApp, TestApp } from '../../support/test-app';
import { createTenant } from '../../support/tenants';

describe('Primary wallet from CustomerCreated', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  async function customerWithoutEvent(actor: { organizationId: string; workspaceId: string }, currency: string): Promise<string> {
    const id = newId();
    await t.app
      .get(DataSource)
      .query(
        `INSERT INTO customers (organization_id, workspace_id, id, name, currency, created_at) VALUES ($1, $2, $3, 'Late event', $4, now())`,
        [actor.organizationId, actor.workspaceId, id, currency],
      );
    return id;
  }

  async function deliver(event: CustomerCreated): Promise<void> {
    await t.app.get(TransactionHost).withTransaction(() => t.app.get(PrimaryWalletOnCustomerCreated).handle(event));
  }

  it('creates the primary wallet once, however often the event is delivered', async () => {
    const tenant = await createTenant(t);
    const actor = await t.app.get(QueryBus).execute(new AuthenticateRequestQuery(tenant.auth, '127.0.0.1', undefined));
    const customerId = await customerWithoutEvent(actor, 'USD');
    const event = new CustomerCreated(actor.organizationId, actor.workspaceId, customerId, 'USD', new Date().toISOString());
    await deliver(event);
    await deliver(event);
    const wallets = await t.app
      .get(DataSource)
      .query('SELECT currency, is_primary FROM wallets WHERE customer_id = $1', [customerId]);
    expect(wallets).toEqual([{ currency: 'USD', is_primary: true }]);
  });

  it('promotes a wallet of the same currency opened before the event arrived, instead of failing forever', async () => {
    const tenant = await createTenant(t);
    const actor = await t.app.get(QueryBus).execute(new AuthenticateRequestQuery(tenant.auth, '127.0.0.1', undefined));
    const customerId = await customerWithoutEvent(actor, 'EUR');
    const secondary = await t.app
      .get(CommandBus)
      .execute(new CreateWalletCommand(actor, { customerId, currency: 'EUR', settings: {} }));
    expect(secondary.snapshot.isPrimary).toBe(false);
    await deliver(new CustomerCreated(actor.organizationId, actor.workspaceId, customerId, 'EUR', new Date().toISOString()));
    const wallets = await t.app.get(DataSource).query('SELECT id, is_primary FROM wallets WHERE customer_id = $1', [customerId]);
    expect(wallets).toEqual([{ id: secondary.id, is_primary: true }]);
  });
});

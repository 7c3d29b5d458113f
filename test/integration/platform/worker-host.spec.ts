import { INestApplicationContext, Module } from '@nestjs/common';
import { CommandBus, CqrsModule } from '@nestjs/cqrs';
import { NestFactory } from '@nestjs/core';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ClsModule } from 'nestjs-cls';
import { Client } from 'pg';
import { BillingWalletModule } from '@app/billing-wallet';
import { CatalogModule } from '@app/catalog';
import { BootstrapOrganizationCommand, CreateCustomerCommand, ALL_SCOPES } from '@app/identity';
import { dataSourceOptions, OutboxRelay, PlatformModule, platformTransactionalPlugin } from '@app/shared-kernel';
import { WebhooksModule } from '@app/webhooks';
import { workerActor } from '../../../apps/worker/src/worker-actor';
import { WorkerModule, workerContexts } from '../../../apps/worker/src/worker.module';
import { WorkerOperations } from '../../../apps/worker/src/worker-operations';
import { createTestDatabase, TestDatabase } from '../../support/test-database';

const APP_SECRET = 'worker-host-spec-secret-0123456789abcdef';

/**
 * apps/worker (issue 22, item 6): the contexts used as libraries by a Nest application without
 * HTTP, on its own DataSource, with none of the platform's background parts; a wallet credited and
 * a plan published through the command bus, checked in the rows.
 */
describe('the example worker host', () => {
  let database: TestDatabase;
  let sql: Client;

  beforeAll(async () => {
    database = await createTestDatabase();
    sql = new Client({ connectionString: database.url });
    await sql.connect();
  });

  afterAll(async () => {
    await sql?.end();
    await database?.drop();
  });

  describe('booted with the contexts it needs', () => {
    let worker: INestApplicationContext;

    beforeAll(async () => {
      worker = await NestFactory.createApplicationContext(
        WorkerModule.forRoot({ databaseUrl: database.url, appSecret: APP_SECRET }),
        { logger: false },
      );
    });

    afterAll(() => worker?.close());

    async function sandboxActor() {
      const org = await worker.get(CommandBus).execute(new BootstrapOrganizationCommand(`Worker org ${Date.now()}`));
      const workspace = org.workspaces.find((candidate) => candidate.mode === 'sandbox')!;
      return workerActor({
        organizationId: org.organization_id,
        workspaceId: workspace.id,
        workspaceMode: 'sandbox',
        apiKeyId: org.sandbox_api_key.id,
        scopes: ALL_SCOPES,
      });
    }

    it('runs none of the background parts it did not ask for', () => {
      expect(() => worker.get(OutboxRelay)).toThrow();
    });

    it("credits a customer's wallet through the command bus", async () => {
      const actor = await sandboxActor();
      const customer = await worker.get(CommandBus).execute(new CreateCustomerCommand(actor, { name: 'Ada', currency: 'USD' }));
      const walletId = customer.primaryWalletId!;

      await worker.get(WorkerOperations).creditWallet(actor, walletId, '12.50', 'worker-credit-1');

      const { rows: wallets } = await sql.query(
        'SELECT cash_balance::text AS balance FROM wallets WHERE organization_id = $1 AND workspace_id = $2 AND id = $3',
        [actor.organizationId, actor.workspaceId, walletId],
      );
      expect(wallets).toEqual([{ balance: '12.5000' }]);
      const { rows: lines } = await sql.query(
        `SELECT type, amount::text AS amount, reference, created_by_id FROM wallet_transactions
          WHERE organization_id = $1 AND wallet_id = $2`,
        [actor.organizationId, walletId],
      );
      expect(lines).toEqual([
        { type: 'credit', amount: '12.5000', reference: 'worker-credit-1', created_by_id: actor.principal.id },
      ]);
    });

    it('publishes a plan through the command bus', async () => {
      const actor = await sandboxActor();

      const { planId, changeId } = await worker.get(WorkerOperations).publishPlan(actor, 'Worker plan');

      const { rows: plans } = await sql.query('SELECT name, status FROM plans WHERE organization_id = $1 AND id = $2', [
        actor.organizationId,
        planId,
      ]);
      expect(plans).toEqual([{ name: 'Worker plan', status: 'active' }]);
      const { rows: versions } = await sql.query(
        'SELECT version, status, change_id FROM plan_versions WHERE organization_id = $1 AND plan_id = $2 AND status = $3',
        [actor.organizationId, planId, 'published'],
      );
      expect(versions).toEqual([{ version: 1, status: 'published', change_id: changeId }]);
    });
  });

  it('runs on a DataSource and a nestjs-cls set-up the host brings', async () => {
    @Module({
      imports: [
        TypeOrmModule.forRoot({ ...dataSourceOptions(database.url), autoLoadEntities: true }),
        ClsModule.forRoot({ global: true, plugins: [platformTransactionalPlugin()] }),
        CqrsModule.forRoot(),
        PlatformModule.forRoot({ databaseUrl: database.url, appSecret: APP_SECRET, dataSource: 'host', cls: 'host' }),
        ...workerContexts(),
      ],
      providers: [WorkerOperations],
    })
    class OwnInfrastructureHost {}
    const host = await NestFactory.createApplicationContext(OwnInfrastructureHost, { logger: false });
    try {
      const org = await host.get(CommandBus).execute(new BootstrapOrganizationCommand('Own infrastructure'));
      const workspace = org.workspaces.find((candidate) => candidate.mode === 'sandbox')!;
      const actor = workerActor({
        organizationId: org.organization_id,
        workspaceId: workspace.id,
        workspaceMode: 'sandbox',
        apiKeyId: org.sandbox_api_key.id,
        scopes: ALL_SCOPES,
      });
      const customer = await host.get(CommandBus).execute(new CreateCustomerCommand(actor, { name: 'Grace', currency: 'EUR' }));
      await host.get(WorkerOperations).creditWallet(actor, customer.primaryWalletId!, '3.25');
      const { rows } = await sql.query(
        'SELECT cash_balance::text AS balance FROM wallets WHERE organization_id = $1 AND id = $2',
        [actor.organizationId, customer.primaryWalletId],
      );
      expect(rows).toEqual([{ balance: '3.2500' }]);
    } finally {
      await host.close();
    }
  });

  it('refuses to boot, naming the missing handler, when a context it imports needs one it lacks', async () => {
    // Without identity: wallets send HoldForApprovalCommand and catalog sends GetCustomerQuery to it.
    const withoutIdentity = WorkerModule.forRoot({ databaseUrl: database.url, appSecret: APP_SECRET }, [
      BillingWalletModule,
      CatalogModule,
      WebhooksModule,
    ]);
    await expect(NestFactory.createApplicationContext(withoutIdentity, { logger: false, abortOnError: false })).rejects.toThrow(
      /BillingWalletModule sends HoldForApprovalCommand but no module of this application registers a handler for it[\s\S]*CatalogModule sends GetCustomerQuery/,
    );
  });
});

import { DynamicModule, Module, Type } from '@nestjs/common';
import { CqrsModule } from '@nestjs/cqrs';
import { BillingWalletModule } from '@app/billing-wallet';
import { CatalogModule } from '@app/catalog';
import { IdentityModule } from '@app/identity';
import { PlatformModule, PlatformPart } from '@app/shared-kernel';
import { WebhookEventHook, WebhooksModule } from '@app/webhooks';
import { WorkerOperations } from './worker-operations';

export interface WorkerModuleOptions {
  databaseUrl: string;
  appSecret: string;
  /** The platform's background parts this process runs too; none by default (apps/api runs them). */
  parts?: readonly PlatformPart[];
}

/**
 * The contexts the worker uses, with what their bus ports need: wallets send HoldForApprovalCommand
 * (identity) and catalog sends GetCustomerQuery (identity), so identity is here although the worker
 * sends it nothing; webhooks, because every event written queues its deliveries (WebhookEventHook).
 */
export function workerContexts(): (Type | DynamicModule)[] {
  return [BillingWalletModule, IdentityModule.register({ customerWallets: BillingWalletModule }), CatalogModule, WebhooksModule];
}

/**
 * An example host of the contexts as libraries: no HTTP, its own DataSource from the database URL,
 * the platform's background parts left to apps/api unless asked for. The schema is apps/api's to
 * migrate (or `npm run migration:run`).
 */
@Module({})
export class WorkerModule {
  static forRoot(options: WorkerModuleOptions, contexts: (Type | DynamicModule)[] = workerContexts()): DynamicModule {
    return {
      module: WorkerModule,
      imports: [
        CqrsModule.forRoot(),
        PlatformModule.forRoot({
          databaseUrl: options.databaseUrl,
          appSecret: options.appSecret,
          parts: options.parts ?? [],
          eventPublishedHook: WebhookEventHook,
        }),
        ...contexts,
      ],
      providers: [WorkerOperations],
    };
  }
}

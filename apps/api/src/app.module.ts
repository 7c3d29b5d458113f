import { DynamicModule, Module } from '@nestjs/common';
import { CqrsModule } from '@nestjs/cqrs';
import { Clock, PLATFORM_PARTS, PlatformModule } from '@app/shared-kernel';
import { WebhookEventHook } from '@app/webhooks';
import { LoggerModule } from 'nestjs-pino';
import { DestinationStream } from 'pino';
import { BillingWalletHttpModule } from './billing-wallet/billing-wallet-http.module';
import { CatalogHttpModule } from './catalog/catalog-http.module';
import { AppConfig } from './config/app-config';
import { DocumentsHttpModule } from './documents/documents-http.module';
import { EventsHttpModule } from './events/events-http.module';
import { EventLoopMonitor } from './health/event-loop-monitor';
import { HealthController } from './health/health.controller';
import { HttpEdgeModule } from './http/http.module';
import { ShutdownGate } from './http/shutdown-gate';
import { IdentityHttpModule } from './identity/identity-http.module';
import { loggerParams } from './logging';
import { WebhooksHttpModule } from './webhooks/webhooks-http.module';
import { migrations } from '../../../migrations';

export interface AppModuleOptions {
  config: AppConfig;
  databaseUrl: string;
  appSecret: string;
  /** Tests inject a clock they move by hand. */
  clock?: Clock;
  /** Tests read the log lines. */
  logDestination?: DestinationStream;
}

@Module({})
export class AppModule {
  static forRoot(options: AppModuleOptions): DynamicModule {
    return {
      module: AppModule,
      imports: [
        LoggerModule.forRoot(loggerParams(options.config, options.logDestination)),
        CqrsModule.forRoot(),
        PlatformModule.forRoot({
          databaseUrl: options.databaseUrl,
          appSecret: options.appSecret,
          // The API runs every background part: job workers, outbox relay, retention, listener.
          parts: PLATFORM_PARTS,
          migrations,
          clock: options.clock,
          environment: options.config.NODE_ENV,
          idempotencyResponseMaxBytes: options.config.IDEMPOTENCY_RESPONSE_MAX_BYTES,
          // Every written event queues its webhook deliveries in its own statement.
          eventPublishedHook: WebhookEventHook,
        }),
        IdentityHttpModule,
        EventsHttpModule,
        CatalogHttpModule,
        DocumentsHttpModule.register(options.config),
        BillingWalletHttpModule,
        WebhooksHttpModule,
        HttpEdgeModule.register(options.config),
      ],
      controllers: [HealthController],
      providers: [
        ShutdownGate,
        { provide: EventLoopMonitor, useFactory: () => new EventLoopMonitor(options.config.EVENT_LOOP_REPORT_SECONDS) },
      ],
    };
  }
}

import { ClsPluginTransactional } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { DynamicModule, Global, Module, Type } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { TypeOrmModule, getDataSourceToken } from '@nestjs/typeorm';
import { ClsModule } from 'nestjs-cls';
import { dataSourceOptions } from '../../../ormconfig';
import { AuditLog } from './audit/audit-log';
import { BusPortsCheck } from './bus-ports';
import { Clock } from './clock';
import { CursorCodec } from './cursor';
import { IdempotencyRetention } from './idempotency/idempotency-retention';
import { IdempotencyStore } from './idempotency/idempotency-store';
import { JobQueue } from './jobs/job-queue';
import { Outbox } from './outbox/outbox';
import { EventLog } from './events/event-log';
import { EventPublishedHook } from './events/event-published-hook';
import { GetEventHandler, ListEventsHandler } from './events/event-queries';
import { EventRetention } from './events/event-retention';
import { OutboxRelay } from './outbox/outbox-relay';
import { DatabaseClock } from './persistence/database-clock';
import { DatabaseHealth } from './persistence/database-health';
import { PgNotifications } from './persistence/pg-notifications';
import { RateLimitCounter } from './persistence/rate-limit-counter';
import { TenantRouting } from './persistence/tenant-routing';
import { TransactionalNotifier } from './persistence/transactional-notifier';
import { WritePipeline } from './persistence/write-pipeline';
import { DEFAULT_IDEMPOTENCY_RESPONSE_MAX_BYTES } from './idempotency/idempotency-store';
import { PlatformOptions } from './platform-options';
import { REQUEST_ID_KEY } from './request-context';

export interface PlatformModuleOptions {
  databaseUrl: string;
  appSecret: string;
  /** Replaces the database clock, for tests that move time by hand. */
  clock?: Clock;
  /** NODE_ENV; development when not given. */
  environment?: PlatformOptions['environment'];
  /** IDEMPOTENCY_RESPONSE_MAX_BYTES; DEFAULT_IDEMPOTENCY_RESPONSE_MAX_BYTES when not given. */
  idempotencyResponseMaxBytes?: number;
  /**
   * What EventLog hands every written event to, inside its transaction (webhook deliveries); the
   * no-op EventPublishedHook when not given. Its dependencies must be this module's providers.
   */
  eventPublishedHook?: Type<EventPublishedHook>;
}

/**
 * The infrastructure every context builds on: the database and its unit of work, the clock,
 * the outbox and its relay, the job queue, notifications, the cursor codec.
 */
@Global()
@Module({})
export class PlatformModule {
  static forRoot(options: PlatformModuleOptions): DynamicModule {
    const platformOptions: PlatformOptions = {
      databaseUrl: options.databaseUrl,
      appSecret: options.appSecret,
      environment: options.environment ?? 'development',
      idempotencyResponseMaxBytes: options.idempotencyResponseMaxBytes ?? DEFAULT_IDEMPOTENCY_RESPONSE_MAX_BYTES,
    };
    return {
      module: PlatformModule,
      imports: [
        DiscoveryModule,
        TypeOrmModule.forRoot({ ...dataSourceOptions(options.databaseUrl), autoLoadEntities: true }),
        ClsModule.forRoot({
          global: true,
          middleware: {
            mount: true,
            generateId: false,
            setup: (cls, request: { id?: string }) => cls.set(REQUEST_ID_KEY, request.id),
          },
          plugins: [
            new ClsPluginTransactional({
              imports: [TypeOrmModule],
              adapter: new TransactionalAdapterTypeOrm({ dataSourceToken: getDataSourceToken() }),
              enableTransactionProxy: false,
            }),
          ],
        }),
      ],
      providers: [
        { provide: PlatformOptions, useValue: platformOptions },
        options.clock ? { provide: Clock, useValue: options.clock } : { provide: Clock, useClass: DatabaseClock },
        { provide: CursorCodec, useValue: new CursorCodec(options.appSecret) },
        PgNotifications,
        Outbox,
        OutboxRelay,
        JobQueue,
        DatabaseHealth,
        IdempotencyRetention,
        { provide: EventPublishedHook, useClass: options.eventPublishedHook ?? EventPublishedHook },
        EventLog,
        EventRetention,
        ListEventsHandler,
        GetEventHandler,
        AuditLog,
        IdempotencyStore,
        TransactionalNotifier,
        RateLimitCounter,
        TenantRouting,
        WritePipeline,
        // Refuses to start when a context's bus port has no handler in this application (bus-ports.ts).
        BusPortsCheck,
      ],
      exports: [
        PlatformOptions,
        Clock,
        CursorCodec,
        PgNotifications,
        Outbox,
        OutboxRelay,
        JobQueue,
        DatabaseHealth,
        AuditLog,
        EventLog,
        EventPublishedHook,
        EventRetention,
        TransactionalNotifier,
        IdempotencyStore,
        RateLimitCounter,
      ],
    };
  }
}

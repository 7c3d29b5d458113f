import { ClsPluginTransactional } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { DynamicModule, Global, Module, Provider, Type } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { TypeOrmModule, getDataSourceToken } from '@nestjs/typeorm';
import { ClsModule } from 'nestjs-cls';
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
import { GetEventHandler } from './application/events/get-event.handler';
import { ListEventsHandler } from './application/events/list-events.handler';
import { EventRetention } from './events/event-retention';
import { OutboxRelay } from './outbox/outbox-relay';
import { DatabaseClock } from './persistence/database-clock';
import { dataSourceOptions } from './persistence/data-source-options';
import { DatabaseHealth } from './persistence/database-health';
import { MigrationClass } from './persistence/migration-list';
import { PgNotifications } from './persistence/pg-notifications';
import { RateLimitCounter } from './persistence/rate-limit-counter';
import { TenantRouting } from './persistence/tenant-routing';
import { TransactionalNotifier } from './persistence/transactional-notifier';
import { WritePipeline } from './persistence/write-pipeline';
import { DEFAULT_IDEMPOTENCY_RESPONSE_MAX_BYTES } from './idempotency/idempotency-store';
import { PlatformOptions } from './platform-options';
import { PlatformPart, PlatformParts } from './platform-parts';
import { REQUEST_ID_KEY } from './request-context';

export interface PlatformModuleOptions {
  /** The database the platform's own connections use (job queue, listener), and its DataSource's when `dataSource` is 'own'. */
  databaseUrl: string;
  appSecret: string;
  /**
   * 'own' (default): the platform registers the default TypeORM DataSource (TypeOrmModule.forRoot,
   * autoLoadEntities). 'host': the host registers it itself (TypeOrmModule.forRoot with
   * `autoLoadEntities: true`, so the contexts' row classes are found); the contexts inject the
   * default DataSource, so a named one cannot stand in for it.
   */
  dataSource?: 'own' | 'host';
  /**
   * The host's migrations (composeMigrations of its contexts' lists), given to its own DataSource:
   * DatabaseHealth reports the ones the database has not applied. A host that brings its own
   * DataSource gives them to it instead.
   */
  migrations?: readonly MigrationClass[];
  /**
   * 'own' (default): the platform sets up nestjs-cls (global, its HTTP middleware naming the request
   * id) with the transactional plugin. 'host': the host calls ClsModule.forRoot itself, global,
   * with `platformTransactionalPlugin()` among its plugins: every unit of work goes through it.
   */
  cls?: 'own' | 'host';
  /** The background parts this host runs (platform-parts.ts); none when not given. */
  parts?: readonly PlatformPart[];
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

/** The unit of work's plugin for a host that sets up nestjs-cls itself (`cls: 'host'`). */
export function platformTransactionalPlugin(): ClsPluginTransactional {
  return new ClsPluginTransactional({
    imports: [TypeOrmModule],
    adapter: new TransactionalAdapterTypeOrm({ dataSourceToken: getDataSourceToken() }),
    enableTransactionProxy: false,
  });
}

/**
 * The infrastructure every context builds on: the database and its unit of work, the clock,
 * the outbox, the job queue, notifications, the event log, the cursor codec; and, as parts a host
 * opts into, the job workers, the outbox relay, the retention jobs and the listener connection.
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
    const parts = new PlatformParts(options.parts ?? []);
    const optional = optionalParts(parts);
    return {
      module: PlatformModule,
      imports: [
        DiscoveryModule,
        ...(options.dataSource === 'host'
          ? []
          : [
              TypeOrmModule.forRoot({
                ...dataSourceOptions(options.databaseUrl, { migrations: [...(options.migrations ?? [])] }),
                autoLoadEntities: true,
              }),
            ]),
        ...(options.cls === 'host'
          ? []
          : [
              ClsModule.forRoot({
                global: true,
                middleware: {
                  mount: true,
                  generateId: false,
                  setup: (cls, request: { id?: string }) => cls.set(REQUEST_ID_KEY, request.id),
                },
                plugins: [platformTransactionalPlugin()],
              }),
            ]),
      ],
      providers: [
        { provide: PlatformOptions, useValue: platformOptions },
        { provide: PlatformParts, useValue: parts },
        options.clock ? { provide: Clock, useValue: options.clock } : { provide: Clock, useClass: DatabaseClock },
        { provide: CursorCodec, useValue: new CursorCodec(options.appSecret) },
        PgNotifications,
        Outbox,
        JobQueue,
        DatabaseHealth,
        { provide: EventPublishedHook, useClass: options.eventPublishedHook ?? EventPublishedHook },
        EventLog,
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
        ...optional,
      ],
      exports: [
        PlatformOptions,
        PlatformParts,
        Clock,
        CursorCodec,
        PgNotifications,
        Outbox,
        JobQueue,
        DatabaseHealth,
        AuditLog,
        EventLog,
        EventPublishedHook,
        TransactionalNotifier,
        IdempotencyStore,
        RateLimitCounter,
        ...optional,
      ],
    };
  }
}

/** The providers of the opted-in parts that exist only where they run. */
function optionalParts(parts: PlatformParts): Provider[] {
  return [
    ...(parts.has('outbox-relay') ? [OutboxRelay] : []),
    ...(parts.has('retention') ? [IdempotencyRetention, EventRetention] : []),
  ];
}

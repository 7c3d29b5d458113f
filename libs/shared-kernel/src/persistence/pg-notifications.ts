import { Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown, Optional } from '@nestjs/common';
import { Client } from 'pg';
import { PlatformOptions } from '../platform-options';
import { PlatformParts } from '../platform-parts';

type NotificationHandler = (payload: string) => void;

interface Subscription {
  onNotification: NotificationHandler;
  /** Called after every (re)connect: notifications sent while disconnected are lost. */
  onResubscribe?: () => void;
}

const RECONNECT_DELAY_MS = 500;
const CHANNEL_PATTERN = /^[a-z_][a-z0-9_]*$/;

/**
 * One dedicated connection LISTENing for PostgreSQL notifications on behalf of the whole
 * process. NOTIFY is delivered only when the sending transaction commits, which makes it a
 * natural after-commit signal across every running instance. It connects only in a host with
 * the `notifications` part (or when built without parts); elsewhere subscriptions are kept and
 * never called.
 */
@Injectable()
export class PgNotifications implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(PgNotifications.name);
  private readonly subscriptions = new Map<string, Subscription[]>();
  private client?: Client;
  private stopped = false;

  constructor(
    private readonly options: PlatformOptions,
    @Optional() private readonly parts?: PlatformParts,
  ) {}

  subscribe(channel: string, subscription: Subscription): void {
    if (!CHANNEL_PATTERN.test(channel)) throw new Error(`Invalid notification channel ${channel}`);
    const existing = this.subscriptions.get(channel);
    if (existing) {
      existing.push(subscription);
      return;
    }
    this.subscriptions.set(channel, [subscription]);
    void this.client?.query(`LISTEN ${channel}`).catch((error: Error) => this.logger.error(error.message));
  }

  async onApplicationBootstrap(): Promise<void> {
    if (this.parts && !this.parts.has('notifications')) return;
    await this.connect();
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopped = true;
    await this.client?.end().catch(() => undefined);
  }

  /**
   * One attempt. Only a connection that was established (LISTENing) schedules a reconnect when it
   * ends; a failed attempt is retried by reconnect() alone. (Both used to retry it: each failure
   * doubled the retry chains, and a database down for a few seconds left thousands of listener
   * connections and "too many clients" behind.)
   */
  private async connect(): Promise<void> {
    const client = new Client({ connectionString: this.options.databaseUrl, application_name: 'billing-api-listener' });
    let established = false;
    let ended = false;
    client.on('notification', (message) => {
      for (const subscription of this.subscriptions.get(message.channel) ?? []) {
        subscription.onNotification(message.payload ?? '');
      }
    });
    client.on('error', (error) => this.logger.warn(`listener connection error: ${error.message}`));
    client.on('end', () => {
      ended = true;
      if (this.client === client) this.client = undefined;
      if (established && !this.stopped) setTimeout(() => void this.reconnect(), RECONNECT_DELAY_MS).unref();
    });
    try {
      await client.connect();
      for (const channel of this.subscriptions.keys()) await client.query(`LISTEN ${channel}`);
      if (ended) throw new Error('the connection ended while it was being set up');
    } catch (error) {
      await client.end().catch(() => undefined);
      throw error;
    }
    if (this.stopped) {
      await client.end().catch(() => undefined);
      return;
    }
    established = true;
    this.client = client;
    for (const subscriptions of this.subscriptions.values()) {
      for (const subscription of subscriptions) subscription.onResubscribe?.();
    }
  }

  private async reconnect(): Promise<void> {
    if (this.stopped) return;
    try {
      await this.connect();
      this.logger.log('listener reconnected');
    } catch (error) {
      this.logger.warn(`listener reconnect failed: ${(error as Error).message}`);
      setTimeout(() => void this.reconnect(), RECONNECT_DELAY_MS * 4).unref();
    }
  }
}

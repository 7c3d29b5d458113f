/** What the platform needs from the application's validated configuration. */
export abstract class PlatformOptions {
  abstract readonly databaseUrl: string;
  /** Signs cursors and webhooks. */
  abstract readonly appSecret: string;
  /** NODE_ENV: what only development may do (a sandbox payment provider serving live workspaces) is refused elsewhere. */
  abstract readonly environment: 'development' | 'test' | 'production';
  /** The most a stored idempotent response may weigh, sealed (compressed and encrypted), in bytes. */
  abstract readonly idempotencyResponseMaxBytes: number;
}

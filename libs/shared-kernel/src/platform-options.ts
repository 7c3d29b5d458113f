/** What the platform needs from the application's validated configuration. */
export abstract class PlatformOptions {
  abstract readonly databaseUrl: string;
  /** Signs cursors and webhooks. */
  abstract readonly appSecret: string;
}

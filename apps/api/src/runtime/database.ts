import { AppConfig } from '../config/app-config';
import { EmbeddedDatabase, startEmbeddedPostgres } from './embedded-postgres';

export interface Database {
  url: string;
  embedded?: EmbeddedDatabase;
}

/** DATABASE_URL when set, else the embedded PostgreSQL under DATA_DIR. */
export async function openDatabase(
  config: AppConfig,
  log: (message: string) => void,
  options: { reuseRunning?: boolean } = {},
): Promise<Database> {
  if (config.DATABASE_URL) return { url: config.DATABASE_URL };
  const embedded = await startEmbeddedPostgres(config.DATA_DIR, log, options);
  return { url: embedded.url, embedded };
}

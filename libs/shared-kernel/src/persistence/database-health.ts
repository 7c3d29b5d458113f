import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { pendingMigrationCount } from './run-migrations';

export interface DatabaseReadiness {
  database: 'up' | 'down';
  migrations: 'applied' | 'pending' | 'unknown';
}

/** What the database is, when it is more than one PostgreSQL: a Citus coordinator and its workers. */
export interface DatabaseEngine {
  engine: 'citus';
  /** Active primary worker nodes (the coordinator excluded). */
  workers: number;
}

@Injectable()
export class DatabaseHealth {
  constructor(private readonly dataSource: DataSource) {}

  async readiness(): Promise<DatabaseReadiness> {
    try {
      const pending = await pendingMigrationCount(this.dataSource);
      return { database: 'up', migrations: pending === 0 ? 'applied' : 'pending' };
    } catch {
      return { database: 'down', migrations: 'unknown' };
    }
  }

  /**
   * On a Citus coordinator (the database has the `citus` extension), the engine and how many
   * workers hold the shards; undefined on plain PostgreSQL, or when the database does not answer.
   */
  async engine(): Promise<DatabaseEngine | undefined> {
    try {
      const citus: unknown[] = await this.dataSource.query(`SELECT 1 FROM pg_extension WHERE extname = 'citus'`);
      if (citus.length === 0) return undefined;
      const [row] = (await this.dataSource.query(
        `SELECT count(*)::int AS workers FROM pg_dist_node WHERE groupid <> 0 AND noderole = 'primary' AND isactive`,
      )) as Array<{ workers: number }>;
      return { engine: 'citus', workers: row.workers };
    } catch {
      return undefined;
    }
  }
}

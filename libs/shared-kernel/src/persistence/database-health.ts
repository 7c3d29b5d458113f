import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { pendingMigrationCount } from './run-migrations';

export interface DatabaseReadiness {
  database: 'up' | 'down';
  migrations: 'applied' | 'pending' | 'unknown';
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
}

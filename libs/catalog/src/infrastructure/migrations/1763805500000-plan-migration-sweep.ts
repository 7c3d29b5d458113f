import { MigrationInterface, QueryRunner } from 'typeorm';

/** The sweep for migrations their jobs left behind reads only the open ones. */
export class PlanMigrationSweep1763805500000 implements MigrationInterface {
  name = 'PlanMigrationSweep1763805500000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE INDEX plan_migrations_open_idx ON plan_migrations (status, scheduled_at, started_at)
      WHERE status IN ('scheduled', 'running')`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX plan_migrations_open_idx`);
  }
}

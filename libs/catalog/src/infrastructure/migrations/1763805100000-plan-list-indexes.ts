import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The plan list's description sort (model §6: plans without a description last, both ways) reads
 * two index ranges — the described plans by description, then the undescribed ones by id — so that
 * a deep page costs what the first does. The two indexes of 1763805000000 on
 * `((description IS NULL), description, id)` were never chosen for it (EXPLAIN at 100,000 plans: a
 * sequential scan and a sort), and indexing the whole description made a plan whose description
 * exceeds a btree entry (about 2,700 bytes; descriptions take 5,000 characters) impossible to save:
 * they are replaced by partial indexes on the description's first 500 characters (at most 2,000
 * bytes), which is what the list sorts by.
 */
export class PlanListIndexes1763805100000 implements MigrationInterface {
  name = 'PlanListIndexes1763805100000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX plans_description_asc_idx`);
    await q.query(`DROP INDEX plans_description_desc_idx`);
    await q.query(`
      CREATE INDEX plans_described_idx ON plans (organization_id, workspace_id, left(description, 500) COLLATE "C", id)
        WHERE deleted_at IS NULL AND description IS NOT NULL`);
    await q.query(`
      CREATE INDEX plans_undescribed_idx ON plans (organization_id, workspace_id, id)
        WHERE deleted_at IS NULL AND description IS NULL`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX plans_undescribed_idx`);
    await q.query(`DROP INDEX plans_described_idx`);
    const live = `WHERE deleted_at IS NULL`;
    await q.query(
      `CREATE INDEX plans_description_asc_idx ON plans (organization_id, workspace_id, (description IS NULL), description COLLATE "C", id) ${live}`,
    );
    await q.query(
      `CREATE INDEX plans_description_desc_idx ON plans (organization_id, workspace_id, (description IS NULL), description COLLATE "C" DESC, id DESC) ${live}`,
    );
  }
}

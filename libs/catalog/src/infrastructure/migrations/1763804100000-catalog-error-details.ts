import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Catalog: an errored version (a release that failed when it fired, a cascade that could not
 * republish) and an errored cascade task keep the refusal's details beside its code and message
 * — the formula's unknown keys, the retired keys of a retirement cascade — so a caller can see
 * what to fix (catalog model §3.5).
 */
export class CatalogErrorDetails1763804100000 implements MigrationInterface {
  name = 'CatalogErrorDetails1763804100000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      `ALTER TABLE product_versions ADD COLUMN error_details jsonb CHECK (error_details IS NULL OR error_code IS NOT NULL)`,
    );
    await q.query(
      `ALTER TABLE cascade_tasks ADD COLUMN error_details jsonb CHECK (error_details IS NULL OR error_code IS NOT NULL)`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE cascade_tasks DROP COLUMN error_details`);
    await q.query(`ALTER TABLE product_versions DROP COLUMN error_details`);
  }
}

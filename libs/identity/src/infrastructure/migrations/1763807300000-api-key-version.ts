import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * API keys count their changes: a key's save writes only over the version it was loaded at (see
 * TypeOrmApiKeyRepository.save), now that a key's name, scopes and addresses change too. Every
 * existing key starts at 1. On Citus `api_keys` is already distributed: the column is added on
 * every shard by the same statement.
 */
export class ApiKeyVersion1763807300000 implements MigrationInterface {
  name = 'ApiKeyVersion1763807300000';

  async up(q: QueryRunner): Promise<void> {
    // Two statements with the constraint named: Citus refuses an unnamed constraint added with its column.
    await q.query(`ALTER TABLE api_keys ADD COLUMN version integer NOT NULL DEFAULT 1`);
    await q.query(`ALTER TABLE api_keys ADD CONSTRAINT api_keys_version_positive CHECK (version >= 1)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE api_keys DROP COLUMN version`);
  }
}

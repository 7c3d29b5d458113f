import { MigrationInterface, QueryRunner } from 'typeorm';

/** Unique on id alone, for lookups by id whose tenant is checked on the row found. */
const ID_KEYED_TABLES = ['workspaces', 'customers', 'wallets', 'customer_verifications', 'wallet_top_ups', 'document_templates'];

/** Unique on a 256-bit credential hash alone: how a request's bearer token finds its credential. */
const HASH_KEYED = [
  { table: 'sessions', column: 'token_hash' },
  { table: 'api_keys', column: 'secret_hash' },
];

/**
 * Every key of a tenant table leads with organization_id, so the schema can be distributed by
 * organization (Citus enforces a primary key or a unique index only when it holds the
 * distribution column) without a redesign; test/integration/platform/distribution-ready-schema
 * reads the catalog to keep it so. Nothing the application does changes:
 *
 * - `<table>_id_key` (unique on id alone) became a plain index on id: the lookups that find a
 *   row by its id and check its tenant on the row (wallet_lock, the visibility checks, webhooks
 *   naming a top-up, the workspace of another organization) still walk an index on id alone, and
 *   nothing needed the uniqueness: ids are server-made UUIDv7 (74 random bits beside the
 *   millisecond), no ON CONFLICT names them, no foreign key references id alone (they reference
 *   the primary keys), and the primary key still holds the id unique within its tenant.
 * - Credential hashes: unique per organization, and a plain index for the lookup by hash alone.
 *   The hash is SHA-256 of a 256-bit random secret; two secrets never share one.
 * - A verification's (provider, provider_reference): unique per organization, plus the index the
 *   webhook looks it up by (the provider's reference resolves the tenant).
 * - verification_webhook_events: keyed (organization_id, provider, event_id). The tenant is known
 *   before the insert (resolved from the reference), and one provider event names one reference,
 *   so a redelivery conflicts exactly as before.
 * - outbox_events: organization_id is required (every producer passes one) and leads the key;
 *   delivered events without one are history and go; an undelivered one makes this fail.
 * - The one global invariant — an address that signs in without naming its organization (users
 *   of before addresses were per organization) identifies one user among all organizations — moves
 *   from a partial unique index on users to a table of its own, `legacy_sign_ins`, keyed by the
 *   address: the table that stays on the coordinator. It has no foreign key to users (a
 *   coordinator-local table cannot reference a distributed one); users are never deleted and
 *   their address never changes.
 *
 * payment_webhook_events stays global: the provider's event is deduplicated before any tenant is
 * known (it names only a top-up id, and one naming an unknown top-up is still recorded).
 */
export class DistributionReadyKeys1763806000000 implements MigrationInterface {
  name = 'DistributionReadyKeys1763806000000';

  async up(q: QueryRunner): Promise<void> {
    for (const table of ID_KEYED_TABLES) {
      await q.query(`DROP INDEX ${table}_id_key`);
      await q.query(`CREATE INDEX ${table}_id_idx ON ${table} (id)`);
    }

    for (const { table, column } of HASH_KEYED) {
      await q.query(`DROP INDEX ${table}_${column}_key`);
      await q.query(`CREATE UNIQUE INDEX ${table}_${column}_key ON ${table} (organization_id, ${column})`);
      await q.query(`CREATE INDEX ${table}_${column}_idx ON ${table} (${column})`);
    }

    await q.query(`DROP INDEX customer_verifications_provider_reference_key`);
    await q.query(
      `CREATE UNIQUE INDEX customer_verifications_provider_reference_key
         ON customer_verifications (organization_id, provider, provider_reference)`,
    );
    await q.query(
      `CREATE INDEX customer_verifications_provider_reference_idx ON customer_verifications (provider, provider_reference)`,
    );

    await q.query(`ALTER TABLE verification_webhook_events DROP CONSTRAINT verification_webhook_events_pkey`);
    await q.query(`ALTER TABLE verification_webhook_events ADD PRIMARY KEY (organization_id, provider, event_id)`);

    await q.query(`DELETE FROM outbox_events WHERE organization_id IS NULL AND dispatched_at IS NOT NULL`);
    await q.query(`ALTER TABLE outbox_events ALTER COLUMN organization_id SET NOT NULL`);
    await q.query(`ALTER TABLE outbox_events DROP CONSTRAINT outbox_events_pkey`);
    await q.query(`ALTER TABLE outbox_events ADD PRIMARY KEY (organization_id, id)`);

    await q.query(`
      CREATE TABLE legacy_sign_ins (
        email text PRIMARY KEY CHECK (email = lower(email) AND email ~ '^[^@\\s]+@[^@\\s]+$'),
        user_organization_id uuid NOT NULL,
        user_id uuid NOT NULL
      )`);
    await q.query(`
      INSERT INTO legacy_sign_ins (email, user_organization_id, user_id)
      SELECT email, organization_id, id FROM users WHERE signs_in_without_organization`);
    await q.query(`DROP INDEX users_sign_in_without_organization_key`);
    await q.query(`ALTER TABLE users DROP COLUMN signs_in_without_organization`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE users ADD COLUMN signs_in_without_organization boolean NOT NULL DEFAULT false`);
    await q.query(`
      UPDATE users u SET signs_in_without_organization = true
        FROM legacy_sign_ins l
       WHERE u.organization_id = l.user_organization_id AND u.id = l.user_id`);
    await q.query(
      `CREATE UNIQUE INDEX users_sign_in_without_organization_key ON users (email) WHERE signs_in_without_organization`,
    );
    await q.query(`DROP TABLE legacy_sign_ins`);

    await q.query(`ALTER TABLE outbox_events DROP CONSTRAINT outbox_events_pkey`);
    await q.query(`ALTER TABLE outbox_events ADD PRIMARY KEY (id)`);
    await q.query(`ALTER TABLE outbox_events ALTER COLUMN organization_id DROP NOT NULL`);

    await q.query(`ALTER TABLE verification_webhook_events DROP CONSTRAINT verification_webhook_events_pkey`);
    await q.query(`ALTER TABLE verification_webhook_events ADD PRIMARY KEY (provider, event_id)`);

    await q.query(`DROP INDEX customer_verifications_provider_reference_idx`);
    await q.query(`DROP INDEX customer_verifications_provider_reference_key`);
    await q.query(
      `CREATE UNIQUE INDEX customer_verifications_provider_reference_key ON customer_verifications (provider, provider_reference)`,
    );

    for (const { table, column } of HASH_KEYED) {
      await q.query(`DROP INDEX ${table}_${column}_idx`);
      await q.query(`DROP INDEX ${table}_${column}_key`);
      await q.query(`CREATE UNIQUE INDEX ${table}_${column}_key ON ${table} (${column})`);
    }

    for (const table of ID_KEYED_TABLES) {
      await q.query(`DROP INDEX ${table}_id_idx`);
      await q.query(`CREATE UNIQUE INDEX ${table}_id_key ON ${table} (id)`);
    }
  }
}

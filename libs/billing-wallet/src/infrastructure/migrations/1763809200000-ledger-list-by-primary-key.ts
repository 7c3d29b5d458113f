import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * One B-tree fewer on the ledger: the primary key is (organization_id, workspace_id, wallet_id,
 * created_at, id), the order the wallet's transaction list reads (`ORDER BY created_at DESC, id
 * DESC` with the keyset `(created_at, id) < ($4, $5)`, a backward scan of this key), so
 * wallet_transactions_list_idx, which held the same columns, is gone. The old primary key
 * (…, wallet_id, id) had no reader: a ledger line is never looked up by its id (the money
 * operations find theirs by (source, reference), the lists by wallet and time). Every ledger
 * line paid two index insertions for it and the list; it now pays one (measured: about 100 B and
 * one WAL record with its full-page images fewer per line).
 *
 * A line's id stays unique in practice (a UUIDv7 the server mints: 48 bits of time and 74
 * random bits) and is still part of the key; what the key no longer refuses is one id twice in
 * a wallet at two different instants. One money operation's line is still one, by the
 * idempotency record and by wallet_transactions_reference_key. On Citus the key leads with the
 * distribution column like every other and the change is propagated to the shards.
 */
export class LedgerListByPrimaryKey1763809200000 implements MigrationInterface {
  name = 'LedgerListByPrimaryKey1763809200000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE wallet_transactions DROP CONSTRAINT wallet_transactions_pkey`);
    await q.query(
      `ALTER TABLE wallet_transactions ADD CONSTRAINT wallet_transactions_pkey PRIMARY KEY (organization_id, workspace_id, wallet_id, created_at, id)`,
    );
    await q.query(`DROP INDEX wallet_transactions_list_idx`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(
      `CREATE INDEX wallet_transactions_list_idx ON wallet_transactions (organization_id, workspace_id, wallet_id, created_at DESC, id DESC)`,
    );
    await q.query(`ALTER TABLE wallet_transactions DROP CONSTRAINT wallet_transactions_pkey`);
    await q.query(
      `ALTER TABLE wallet_transactions ADD CONSTRAINT wallet_transactions_pkey PRIMARY KEY (organization_id, workspace_id, wallet_id, id)`,
    );
  }
}

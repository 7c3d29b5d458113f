import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * One B-tree fewer on the audit log, which every money operation writes a row to: the primary
 * key is (organization_id, occurred_at, id), the order the audit list reads (`ORDER BY
 * occurred_at DESC, id DESC` with the keyset `(occurred_at, id) < ($7, $8)` and the
 * occurred_after/occurred_before bounds: a backward scan of this key), so audit_events_list_idx,
 * which held the same columns, is gone. The old primary key (organization_id, id) had no reader:
 * no route or job reads an audit event by its id. The resource and principal indexes stay (the
 * list's filters read them).
 *
 * An audit event's id stays unique in practice (a UUIDv7 the server mints) and is still part of
 * the key; what the key no longer refuses is one id twice at two different instants. On Citus the
 * key leads with the distribution column like every other and the change is propagated.
 */
export class AuditListByPrimaryKey1763809300000 implements MigrationInterface {
  name = 'AuditListByPrimaryKey1763809300000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE audit_events DROP CONSTRAINT audit_events_pkey`);
    await q.query(`ALTER TABLE audit_events ADD CONSTRAINT audit_events_pkey PRIMARY KEY (organization_id, occurred_at, id)`);
    await q.query(`DROP INDEX audit_events_list_idx`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`CREATE INDEX audit_events_list_idx ON audit_events (organization_id, occurred_at DESC, id DESC)`);
    await q.query(`ALTER TABLE audit_events DROP CONSTRAINT audit_events_pkey`);
    await q.query(`ALTER TABLE audit_events ADD CONSTRAINT audit_events_pkey PRIMARY KEY (organization_id, id)`);
  }
}

import { MigrationInterface, QueryRunner } from 'typeorm';

export class PlatformFoundation1763800000000 implements MigrationInterface {
  name = 'PlatformFoundation1763800000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE outbox_events (
        id uuid PRIMARY KEY,
        organization_id uuid,
        event_type text NOT NULL CHECK (event_type ~ '^[a-z0-9_]+(\\.[a-z0-9_]+)+$'),
        payload jsonb NOT NULL,
        request_id text,
        occurred_at timestamptz NOT NULL,
        attempts integer NOT NULL DEFAULT 0 CHECK (attempts >= 0),
        next_attempt_at timestamptz NOT NULL,
        last_error text,
        dispatched_at timestamptz
      )`);
    await q.query(`
      CREATE INDEX outbox_events_pending_idx ON outbox_events (next_attempt_at, id)
        WHERE dispatched_at IS NULL`);

    await q.query(`
      CREATE TABLE idempotency_records (
        organization_id uuid NOT NULL,
        workspace_id uuid NOT NULL,
        principal_id uuid NOT NULL,
        method text NOT NULL,
        route text NOT NULL,
        idempotency_key text NOT NULL CHECK (idempotency_key ~ '^[\\x20-\\x7e]{1,255}$'),
        fingerprint text NOT NULL,
        response_status smallint NOT NULL,
        response_headers jsonb NOT NULL DEFAULT '{}',
        response_body text,
        created_at timestamptz NOT NULL,
        PRIMARY KEY (organization_id, workspace_id, principal_id, method, route, idempotency_key)
      )`);
    await q.query(`CREATE INDEX idempotency_records_created_at_idx ON idempotency_records (created_at)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE idempotency_records`);
    await q.query(`DROP TABLE outbox_events`);
  }
}

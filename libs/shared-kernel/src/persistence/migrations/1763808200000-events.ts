import { MigrationInterface, QueryRunner } from 'typeorm';
import { distributeTenantTable } from '../citus-distribution';

/**
 * The public event log (api-contract §4). `events` holds each event of a committed change in the
 * workspace where it happened, kept 30 days; `event_sequences` is each workspace's counter, bumped
 * in the change's own statement, so `sequence` increases per workspace in commit order, without
 * gaps. Lists read a workspace's events newest first by sequence; the retention job finds old
 * ones by the BRIN index on created_at (cheap to maintain on an append-only table). Both tables
 * are tenant tables, distributed on Citus by organization_id like every other (no foreign keys:
 * a local table may not reference a distributed one on Citus before it is distributed itself).
 */
export class Events1763808200000 implements MigrationInterface {
  name = 'Events1763808200000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE event_sequences (
        organization_id uuid NOT NULL,
        workspace_id uuid NOT NULL,
        last_sequence bigint NOT NULL CHECK (last_sequence > 0),
        PRIMARY KEY (organization_id, workspace_id)
      )`);
    await q.query(`
      CREATE TABLE events (
        organization_id uuid NOT NULL,
        id uuid NOT NULL,
        workspace_id uuid NOT NULL,
        livemode boolean NOT NULL,
        type text NOT NULL,
        sequence bigint NOT NULL CHECK (sequence > 0),
        data jsonb NOT NULL,
        request_id text,
        idempotency_key text,
        created_at timestamptz NOT NULL,
        PRIMARY KEY (organization_id, id),
        UNIQUE (organization_id, workspace_id, sequence)
      )`);
    await q.query(`CREATE INDEX events_created_at_brin ON events USING brin (created_at)`);
    await distributeTenantTable(q, 'event_sequences');
    await distributeTenantTable(q, 'events');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE events');
    await q.query('DROP TABLE event_sequences');
  }
}

import { MigrationInterface, QueryRunner } from 'typeorm';
import { distributeTenantTable } from '@app/shared-kernel';

/**
 * Webhook endpoints and their deliveries (api-contract.md §4):
 * - `webhook_endpoints`: the integrator's URLs, their event filters and signing secrets, sealed
 *   with the application's key (the previous secret too, while it still signs after a rotation);
 *   `failing_since` is when its deliveries began to fail without a success since.
 * - `webhook_event_payloads`: the body posted for each event, stored once however many endpoints
 *   receive it, so delivery never depends on the event store.
 * - `webhook_deliveries`: one event to one endpoint, with its state and the figures of its latest
 *   attempt; `lease_until` marks an attempt in flight (a sweep requeues one whose server died).
 * - `webhook_delivery_attempts`: the log, one row per attempt.
 * Every table is a tenant table: on Citus each is distributed by organization_id, colocated with
 * `organizations`, before the foreign keys between them are added (Citus accepts a foreign key
 * between distributed colocated tables only).
 */
export class WebhookEndpoints1763809000000 implements MigrationInterface {
  name = 'WebhookEndpoints1763809000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE webhook_endpoints (
        organization_id uuid NOT NULL,
        workspace_id uuid NOT NULL,
        id uuid NOT NULL,
        url text NOT NULL CHECK (length(url) BETWEEN 1 AND 2048),
        description text CHECK (length(description) <= 500),
        metadata jsonb NOT NULL DEFAULT '{}',
        enabled_events text[] NOT NULL CHECK (cardinality(enabled_events) BETWEEN 1 AND 100),
        status text NOT NULL CHECK (status IN ('enabled', 'disabled')),
        disabled_reason text CHECK (disabled_reason IN ('manual', 'failing')),
        disabled_at timestamptz,
        secret_sealed text NOT NULL,
        previous_secret_sealed text,
        previous_secret_expires_at timestamptz,
        failing_since timestamptz,
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL,
        PRIMARY KEY (organization_id, id),
        CHECK ((status = 'disabled') = (disabled_reason IS NOT NULL)),
        CHECK ((previous_secret_sealed IS NULL) = (previous_secret_expires_at IS NULL))
      )`);
    await q.query(
      `CREATE INDEX webhook_endpoints_list_idx ON webhook_endpoints (organization_id, workspace_id, created_at DESC, id DESC)`,
    );
    await distributeTenantTable(q, 'webhook_endpoints');

    await q.query(`
      CREATE TABLE webhook_event_payloads (
        organization_id uuid NOT NULL,
        workspace_id uuid NOT NULL,
        event_id uuid NOT NULL,
        event_type text NOT NULL,
        body text NOT NULL,
        created_at timestamptz NOT NULL,
        PRIMARY KEY (organization_id, event_id)
      )`);
    await q.query(`CREATE INDEX webhook_event_payloads_created_at_idx ON webhook_event_payloads (created_at)`);
    await distributeTenantTable(q, 'webhook_event_payloads');

    await q.query(`
      CREATE TABLE webhook_deliveries (
        organization_id uuid NOT NULL,
        workspace_id uuid NOT NULL,
        id uuid NOT NULL,
        endpoint_id uuid NOT NULL,
        event_id uuid NOT NULL,
        event_type text NOT NULL,
        livemode boolean NOT NULL,
        attempt integer NOT NULL DEFAULT 0 CHECK (attempt >= 0),
        status text NOT NULL CHECK (status IN ('pending', 'succeeded', 'failed')),
        response_status integer,
        duration_ms integer,
        error text,
        next_attempt_at timestamptz,
        lease_until timestamptz,
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL,
        PRIMARY KEY (organization_id, id),
        CHECK ((status = 'pending') = (next_attempt_at IS NOT NULL))
      )`);
    await q.query(
      `CREATE INDEX webhook_deliveries_list_idx ON webhook_deliveries (organization_id, endpoint_id, created_at DESC, id DESC)`,
    );
    await q.query(`CREATE INDEX webhook_deliveries_event_idx ON webhook_deliveries (organization_id, event_id)`);
    await q.query(`CREATE INDEX webhook_deliveries_due_idx ON webhook_deliveries (next_attempt_at) WHERE status = 'pending'`);
    await distributeTenantTable(q, 'webhook_deliveries');

    await q.query(`
      CREATE TABLE webhook_delivery_attempts (
        organization_id uuid NOT NULL,
        workspace_id uuid NOT NULL,
        delivery_id uuid NOT NULL,
        attempt integer NOT NULL CHECK (attempt >= 1),
        endpoint_id uuid NOT NULL,
        event_id uuid NOT NULL,
        url text NOT NULL,
        succeeded boolean NOT NULL,
        response_status integer,
        duration_ms integer NOT NULL CHECK (duration_ms >= 0),
        error text,
        attempted_at timestamptz NOT NULL,
        PRIMARY KEY (organization_id, delivery_id, attempt)
      )`);
    await distributeTenantTable(q, 'webhook_delivery_attempts');

    // One constraint per statement: Citus refuses ADD CONSTRAINT beside other subcommands.
    await q.query(`
      ALTER TABLE webhook_deliveries
        ADD CONSTRAINT webhook_deliveries_endpoint_fk FOREIGN KEY (organization_id, endpoint_id)
          REFERENCES webhook_endpoints (organization_id, id) ON DELETE CASCADE`);
    await q.query(`
      ALTER TABLE webhook_deliveries
        ADD CONSTRAINT webhook_deliveries_payload_fk FOREIGN KEY (organization_id, event_id)
          REFERENCES webhook_event_payloads (organization_id, event_id) ON DELETE CASCADE`);
    await q.query(`
      ALTER TABLE webhook_delivery_attempts
        ADD CONSTRAINT webhook_delivery_attempts_delivery_fk FOREIGN KEY (organization_id, delivery_id)
          REFERENCES webhook_deliveries (organization_id, id) ON DELETE CASCADE`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE webhook_delivery_attempts');
    await q.query('DROP TABLE webhook_deliveries');
    await q.query('DROP TABLE webhook_event_payloads');
    await q.query('DROP TABLE webhook_endpoints');
  }
}

import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Customer verifications (identity, compliance, VAT and business-entity checks by external
 * providers) and the provider webhook deliveries that move them.
 *
 * - `provider_result` is `json`, not `jsonb`: it keeps the provider's text exactly as received.
 * - `(provider, provider_reference)` is unique across tenants: a webhook arrives without a
 *   tenant, and the provider's reference must resolve exactly one record (whose organization and
 *   workspace it then is), never a record of another tenant by collision.
 * - One index per list filter, each led by the tenant and ending in the list's order, so every
 *   filtered page is a bounded index range scan however many verifications there are.
 */
export class CustomerVerifications1763802000000 implements MigrationInterface {
  name = 'CustomerVerifications1763802000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE customer_verifications (
        organization_id uuid NOT NULL,
        workspace_id uuid NOT NULL,
        id uuid NOT NULL,
        customer_id uuid NOT NULL,
        verification_type text NOT NULL CHECK (verification_type IN ('kyc', 'kyb', 'age', 'business_entity', 'vat')),
        status text NOT NULL CHECK (status IN ('pending', 'verified', 'expired', 'failed', 'manual', 'maintenance')),
        provider text NOT NULL CHECK (length(provider) BETWEEN 1 AND 64),
        provider_reference text NOT NULL CHECK (length(provider_reference) BETWEEN 1 AND 255),
        provider_result json,
        last_event_at timestamptz,
        retry_count integer NOT NULL DEFAULT 0 CHECK (retry_count BETWEEN 0 AND 5),
        next_retry_at timestamptz,
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL,
        completed_at timestamptz,
        expires_at timestamptz,
        PRIMARY KEY (organization_id, workspace_id, id),
        FOREIGN KEY (organization_id, workspace_id, customer_id) REFERENCES customers (organization_id, workspace_id, id),
        CHECK (updated_at >= created_at),
        CHECK ((completed_at IS NOT NULL) = (status IN ('verified', 'failed', 'expired'))),
        CHECK (next_retry_at IS NULL OR status = 'maintenance')
      )`);
    await q.query(`CREATE UNIQUE INDEX customer_verifications_id_key ON customer_verifications (id)`);
    await q.query(
      `CREATE UNIQUE INDEX customer_verifications_provider_reference_key ON customer_verifications (provider, provider_reference)`,
    );
    await q.query(
      `CREATE INDEX customer_verifications_list_idx ON customer_verifications (organization_id, workspace_id, created_at DESC, id DESC)`,
    );
    for (const column of ['customer_id', 'status', 'verification_type']) {
      await q.query(
        `CREATE INDEX customer_verifications_${column}_idx
           ON customer_verifications (organization_id, workspace_id, ${column}, created_at DESC, id DESC)`,
      );
    }

    await q.query(`
      CREATE TABLE verification_webhook_events (
        provider text NOT NULL,
        event_id text NOT NULL CHECK (length(event_id) BETWEEN 1 AND 255),
        organization_id uuid NOT NULL,
        workspace_id uuid NOT NULL,
        verification_id uuid NOT NULL,
        event_type text NOT NULL,
        payload text NOT NULL,
        occurred_at timestamptz NOT NULL,
        applied boolean NOT NULL,
        received_at timestamptz NOT NULL,
        PRIMARY KEY (provider, event_id),
        FOREIGN KEY (organization_id, workspace_id, verification_id)
          REFERENCES customer_verifications (organization_id, workspace_id, id)
      )`);
    await q.query(
      `CREATE INDEX verification_webhook_events_verification_idx
         ON verification_webhook_events (organization_id, workspace_id, verification_id, received_at)`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE verification_webhook_events`);
    await q.query(`DROP TABLE customer_verifications`);
  }
}

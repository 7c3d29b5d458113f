import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Tenancy is structural: every tenant table leads its keys with organization_id, and
 * references within a tenant are composite foreign keys, so a row can never point at
 * another organization's row.
 */
export class Identity1763800100000 implements MigrationInterface {
  name = 'Identity1763800100000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE organizations (
        id uuid PRIMARY KEY,
        name text NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
        created_at timestamptz NOT NULL
      )`);

    await q.query(`
      CREATE TABLE workspaces (
        organization_id uuid NOT NULL REFERENCES organizations (id),
        id uuid NOT NULL,
        name text NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
        slug text NOT NULL CHECK (slug ~ '^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$'),
        mode text NOT NULL CHECK (mode IN ('live', 'sandbox')),
        is_default boolean NOT NULL DEFAULT false,
        settings jsonb NOT NULL DEFAULT '{}',
        version integer NOT NULL DEFAULT 1,
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL,
        PRIMARY KEY (organization_id, id),
        UNIQUE (organization_id, slug)
      )`);
    await q.query(`CREATE UNIQUE INDEX workspaces_id_key ON workspaces (id)`);
    await q.query(`CREATE UNIQUE INDEX workspaces_one_default_per_mode ON workspaces (organization_id, mode) WHERE is_default`);

    await q.query(`
      CREATE TABLE users (
        organization_id uuid NOT NULL REFERENCES organizations (id),
        id uuid NOT NULL,
        email text NOT NULL CHECK (email = lower(email) AND email ~ '^[^@\\s]+@[^@\\s]+$'),
        password_hash text NOT NULL,
        role text NOT NULL CHECK (role IN ('owner', 'admin', 'developer', 'viewer')),
        created_at timestamptz NOT NULL,
        PRIMARY KEY (organization_id, id)
      )`);
    await q.query(`CREATE UNIQUE INDEX users_email_key ON users (email)`);

    await q.query(`
      CREATE TABLE sessions (
        organization_id uuid NOT NULL,
        id uuid NOT NULL,
        user_id uuid NOT NULL,
        token_hash bytea NOT NULL CHECK (length(token_hash) = 32),
        expires_at timestamptz NOT NULL,
        revoked_at timestamptz,
        created_at timestamptz NOT NULL,
        PRIMARY KEY (organization_id, id),
        FOREIGN KEY (organization_id, user_id) REFERENCES users (organization_id, id)
      )`);
    await q.query(`CREATE UNIQUE INDEX sessions_token_hash_key ON sessions (token_hash)`);

    await q.query(`
      CREATE TABLE api_keys (
        organization_id uuid NOT NULL REFERENCES organizations (id),
        id uuid NOT NULL,
        name text NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
        prefix text NOT NULL CHECK (length(prefix) = 12),
        secret_hash bytea NOT NULL CHECK (length(secret_hash) = 32),
        key_type text NOT NULL CHECK (key_type IN ('sk_live', 'sk_test')),
        scopes text[] NOT NULL,
        allowed_ips inet[] NOT NULL DEFAULT '{}',
        expires_at timestamptz,
        last_used_at timestamptz,
        revoked_at timestamptz,
        revokes_at timestamptz,
        rotated_from_id uuid,
        created_by_type text NOT NULL CHECK (created_by_type IN ('api_key', 'user', 'system')),
        created_by_id uuid,
        created_at timestamptz NOT NULL,
        PRIMARY KEY (organization_id, id),
        CHECK (starts_with(prefix, key_type || '_')),
        CHECK (revokes_at IS NULL OR expires_at IS NULL OR revokes_at <= expires_at)
      )`);
    await q.query(`CREATE UNIQUE INDEX api_keys_secret_hash_key ON api_keys (secret_hash)`);
    await q.query(`CREATE INDEX api_keys_list_idx ON api_keys (organization_id, created_at DESC, id DESC)`);

    await q.query(`
      CREATE TABLE customers (
        organization_id uuid NOT NULL,
        workspace_id uuid NOT NULL,
        id uuid NOT NULL,
        name text NOT NULL CHECK (length(name) BETWEEN 1 AND 500),
        email text,
        currency char(3) NOT NULL CHECK (currency ~ '^[A-Z]{3}$'),
        external_id text,
        metadata jsonb NOT NULL DEFAULT '{}',
        created_at timestamptz NOT NULL,
        PRIMARY KEY (organization_id, workspace_id, id),
        FOREIGN KEY (organization_id, workspace_id) REFERENCES workspaces (organization_id, id)
      )`);
    await q.query(`CREATE UNIQUE INDEX customers_id_key ON customers (id)`);
    await q.query(
      `CREATE UNIQUE INDEX customers_external_id_key ON customers (organization_id, workspace_id, external_id) WHERE external_id IS NOT NULL`,
    );
    await q.query(`CREATE INDEX customers_list_idx ON customers (organization_id, workspace_id, created_at DESC, id DESC)`);

    await q.query(`
      CREATE TABLE approval_requests (
        organization_id uuid NOT NULL,
        workspace_id uuid NOT NULL,
        id uuid NOT NULL,
        checkpoint text NOT NULL,
        status text NOT NULL CHECK (status IN ('pending', 'approved', 'rejected', 'failed')),
        payload jsonb NOT NULL,
        requested_by_type text NOT NULL,
        requested_by_id uuid NOT NULL,
        decided_by_id uuid,
        decided_at timestamptz,
        decision_reason text,
        result jsonb,
        created_at timestamptz NOT NULL,
        PRIMARY KEY (organization_id, workspace_id, id),
        FOREIGN KEY (organization_id, workspace_id) REFERENCES workspaces (organization_id, id),
        CHECK ((status = 'pending') = (decided_at IS NULL))
      )`);

    await q.query(`
      CREATE TABLE audit_events (
        organization_id uuid NOT NULL,
        id uuid NOT NULL,
        workspace_id uuid,
        action text NOT NULL,
        resource_type text NOT NULL,
        resource_id text NOT NULL,
        principal_type text NOT NULL,
        principal_id uuid,
        request_id text,
        data jsonb NOT NULL DEFAULT '{}',
        occurred_at timestamptz NOT NULL,
        PRIMARY KEY (organization_id, id)
      )`);
    await q.query(`CREATE INDEX audit_events_list_idx ON audit_events (organization_id, occurred_at DESC, id DESC)`);
    await q.query(
      `CREATE INDEX audit_events_resource_idx ON audit_events (organization_id, resource_type, resource_id, occurred_at DESC)`,
    );
    await q.query(`CREATE INDEX audit_events_principal_idx ON audit_events (organization_id, principal_id, occurred_at DESC)`);
  }

  async down(q: QueryRunner): Promise<void> {
    for (const table of [
      'audit_events',
      'approval_requests',
      'customers',
      'api_keys',
      'sessions',
      'users',
      'workspaces',
      'organizations',
    ]) {
      await q.query(`DROP TABLE ${table}`);
    }
  }
}

import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Document templates of a workspace (printed layouts and e-mail templates), the workspace's
 * default printed template per document type, and the per-organization PDF preview counter.
 * System templates are built-in definitions with stable ids, never rows: a default slot may name
 * one, so `template_id` of a slot has no foreign key (a slot naming an organization template is
 * removed in the transaction that deletes or re-types it).
 */
export class DocumentTemplates1763803000000 implements MigrationInterface {
  name = 'DocumentTemplates1763803000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE document_templates (
        organization_id uuid NOT NULL,
        workspace_id uuid NOT NULL,
        id uuid NOT NULL,
        name text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 200),
        description text CHECK (char_length(description) <= 2000),
        kind text NOT NULL CHECK (kind IN ('printed', 'email')),
        document_types text[] NOT NULL
          CHECK (cardinality(document_types) BETWEEN 1 AND 3
                 AND document_types <@ ARRAY['invoice', 'credit_note', 'quote', 'email']::text[]),
        status text NOT NULL,
        anchor_key text,
        template_json jsonb NOT NULL CHECK (jsonb_typeof(template_json) = 'object'),
        schema_version integer NOT NULL CHECK (schema_version >= 1),
        version integer NOT NULL CHECK (version >= 1),
        copied_from_id uuid,
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL,
        deleted_at timestamptz,
        PRIMARY KEY (organization_id, workspace_id, id),
        FOREIGN KEY (organization_id, workspace_id) REFERENCES workspaces (organization_id, id),
        CHECK (
          (kind = 'printed' AND status IN ('active', 'archived') AND anchor_key IS NULL
             AND NOT ('email' = ANY (document_types)))
          OR (kind = 'email' AND status IN ('draft', 'published', 'archived') AND anchor_key IS NOT NULL
             AND document_types = ARRAY['email']::text[])
        )
      )`);
    await q.query(`CREATE UNIQUE INDEX document_templates_id_key ON document_templates (id)`);
    await q.query(
      `CREATE INDEX document_templates_list_idx ON document_templates (organization_id, workspace_id, updated_at DESC, id DESC)
        WHERE deleted_at IS NULL`,
    );
    // One published e-mail template per mail kind: it is the one sent for that kind.
    await q.query(
      `CREATE UNIQUE INDEX document_templates_one_published_per_anchor ON document_templates (organization_id, workspace_id, anchor_key)
        WHERE kind = 'email' AND status = 'published' AND deleted_at IS NULL`,
    );
    await q.query(`
      CREATE TABLE document_template_defaults (
        organization_id uuid NOT NULL,
        workspace_id uuid NOT NULL,
        document_type text NOT NULL CHECK (document_type IN ('invoice', 'credit_note', 'quote')),
        template_id uuid NOT NULL,
        updated_at timestamptz NOT NULL,
        PRIMARY KEY (organization_id, workspace_id, document_type),
        FOREIGN KEY (organization_id, workspace_id) REFERENCES workspaces (organization_id, id)
      )`);
    await q.query(
      `CREATE INDEX document_template_defaults_template_idx ON document_template_defaults (organization_id, workspace_id, template_id)`,
    );
    // Counters of fixed one-minute windows shared by every instance; UNLOGGED: a crash forgets
    // at most the current minute of counts, and no WAL is written per preview.
    await q.query(`
      CREATE UNLOGGED TABLE rate_limit_windows (
        organization_id uuid NOT NULL,
        bucket text NOT NULL,
        window_start timestamptz NOT NULL,
        hits integer NOT NULL CHECK (hits >= 1),
        PRIMARY KEY (organization_id, bucket, window_start)
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE rate_limit_windows');
    await q.query('DROP TABLE document_template_defaults');
    await q.query('DROP TABLE document_templates');
  }
}

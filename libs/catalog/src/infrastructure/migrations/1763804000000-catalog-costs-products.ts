import { MigrationInterface, QueryRunner } from 'typeorm';

/** The lifecycle columns of a version row, shared by product versions (here) and plan versions (later). */
const VERSION_LIFECYCLE = `
  id uuid NOT NULL,
  version integer NOT NULL CHECK (version >= 1),
  status text NOT NULL CHECK (status IN ('draft', 'scheduled', 'published', 'archived')),
  archived_reason text CHECK (archived_reason IN ('canceled', 'discarded', 'errored', 'superseded')),
  origin text CHECK (origin IN ('manual', 'scheduled_release', 'cascade')),
  base_version_id uuid,
  content_hash text NOT NULL,
  change_id uuid,
  scheduled_for timestamptz,
  effective_from timestamptz,
  effective_to timestamptz,
  published_at timestamptz,
  release_name text,
  release_note text,
  cascade_source jsonb,
  created_by jsonb NOT NULL,
  created_at timestamptz NOT NULL,
  touched_at timestamptz NOT NULL,
  error_code text,
  error_message text,
  CHECK ((status = 'archived') = (archived_reason IS NOT NULL)),
  CHECK ((origin = 'cascade') = (cascade_source IS NOT NULL)),
  CHECK (status = 'draft' OR archived_reason = 'discarded' OR origin IS NOT NULL),
  CHECK (status <> 'scheduled' OR (scheduled_for IS NOT NULL AND change_id IS NOT NULL)),
  CHECK (status <> 'published' OR (effective_from IS NOT NULL AND effective_to IS NULL)),
  CHECK (archived_reason IS DISTINCT FROM 'superseded' OR effective_to IS NOT NULL),
  CHECK (effective_to >= effective_from),
  CHECK ((archived_reason = 'errored') = (error_code IS NOT NULL))`;

/**
 * Catalog I: cost definitions with immutable value revisions, products versioned on the shared
 * version line, the changes that publish or schedule versions, and cascade runs. Every key leads
 * with (organization_id, workspace_id); composite foreign keys make a cross-tenant link
 * impossible to store. See docs/catalog.md for the model.
 */
export class CatalogCostsProducts1763804000000 implements MigrationInterface {
  name = 'CatalogCostsProducts1763804000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE products (
        organization_id uuid NOT NULL,
        workspace_id uuid NOT NULL,
        id uuid NOT NULL,
        name text NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
        description text,
        metadata jsonb NOT NULL DEFAULT '{}',
        status text NOT NULL CHECK (status IN ('draft', 'active', 'archived')),
        head_version_id uuid,
        draft_version_id uuid,
        next_version_no integer NOT NULL DEFAULT 1,
        next_release_at timestamptz,
        published_at timestamptz,
        archived_at timestamptz,
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL,
        PRIMARY KEY (organization_id, workspace_id, id),
        CHECK ((status = 'archived') = (archived_at IS NOT NULL)),
        CHECK (status <> 'active' OR head_version_id IS NOT NULL)
      )`);
    await q.query(`CREATE INDEX products_list_idx ON products (organization_id, workspace_id, created_at DESC, id DESC)`);

    await q.query(`
      CREATE TABLE product_versions (
        organization_id uuid NOT NULL,
        workspace_id uuid NOT NULL,
        product_id uuid NOT NULL,
        ${VERSION_LIFECYCLE},
        price_expression text,
        unit_price numeric,
        not_before timestamptz,
        PRIMARY KEY (organization_id, workspace_id, id),
        FOREIGN KEY (organization_id, workspace_id, product_id) REFERENCES products (organization_id, workspace_id, id)
      )`);
    await q.query(
      `CREATE UNIQUE INDEX product_versions_number_key ON product_versions (organization_id, workspace_id, product_id, version)`,
    );
    await q.query(
      `CREATE UNIQUE INDEX product_versions_one_draft ON product_versions (organization_id, workspace_id, product_id) WHERE status = 'draft'`,
    );
    await q.query(
      `CREATE UNIQUE INDEX product_versions_one_head ON product_versions (organization_id, workspace_id, product_id) WHERE status = 'published'`,
    );
    await q.query(`
      CREATE UNIQUE INDEX product_versions_queue_slot ON product_versions (organization_id, workspace_id, product_id, scheduled_for)
        WHERE status = 'scheduled'`);
    await q.query(
      `CREATE UNIQUE INDEX product_versions_scheduled_change ON product_versions (organization_id, workspace_id, change_id) WHERE status = 'scheduled'`,
    );
    await q.query(`
      ALTER TABLE products
        ADD FOREIGN KEY (organization_id, workspace_id, head_version_id) REFERENCES product_versions (organization_id, workspace_id, id)
          DEFERRABLE INITIALLY DEFERRED,
        ADD FOREIGN KEY (organization_id, workspace_id, draft_version_id) REFERENCES product_versions (organization_id, workspace_id, id)
          DEFERRABLE INITIALLY DEFERRED`);

    await q.query(`
      CREATE TABLE costs (
        organization_id uuid NOT NULL,
        workspace_id uuid NOT NULL,
        id uuid NOT NULL,
        scope text NOT NULL CHECK (scope IN ('ORG', 'PRODUCT')),
        product_id uuid,
        key text NOT NULL CHECK (key ~ '^[A-Za-z0-9._-]{1,64}$'),
        state text NOT NULL,
        description text,
        metadata jsonb NOT NULL DEFAULT '{}',
        translations jsonb NOT NULL DEFAULT '{}',
        requires_continuous_coverage boolean NOT NULL DEFAULT false,
        current_revision_no integer NOT NULL,
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL,
        retired_at timestamptz,
        PRIMARY KEY (organization_id, workspace_id, id),
        FOREIGN KEY (organization_id, workspace_id, product_id) REFERENCES products (organization_id, workspace_id, id),
        CHECK ((scope = 'ORG') = (product_id IS NULL)),
        CHECK ((state = 'retired') = (retired_at IS NOT NULL)),
        CHECK (CASE scope WHEN 'ORG' THEN state IN ('active', 'retired') ELSE state IN ('active', 'removed_in_draft', 'removed') END)
      )`);
    await q.query(`
      CREATE UNIQUE INDEX costs_active_org_key ON costs (organization_id, workspace_id, key)
        WHERE scope = 'ORG' AND state = 'active'`);
    await q.query(`
      CREATE UNIQUE INDEX costs_product_key ON costs (organization_id, workspace_id, product_id, key)
        WHERE scope = 'PRODUCT' AND state <> 'removed'`);
    await q.query(`
      CREATE INDEX costs_list_idx ON costs (organization_id, workspace_id, created_at DESC, id DESC)
        WHERE state = 'active'`);
    await q.query(`
      CREATE INDEX costs_scope_list_idx ON costs (organization_id, workspace_id, scope, created_at DESC, id DESC)
        WHERE state = 'active'`);
    await q.query(`
      CREATE INDEX costs_product_idx ON costs (organization_id, workspace_id, product_id, created_at DESC, id DESC)
        WHERE scope = 'PRODUCT'`);
    await q.query(`
      CREATE INDEX costs_org_key_history_idx ON costs (organization_id, workspace_id, key, created_at DESC, id DESC)
        WHERE scope = 'ORG'`);

    await q.query(`
      CREATE TABLE cost_revisions (
        organization_id uuid NOT NULL,
        workspace_id uuid NOT NULL,
        cost_id uuid NOT NULL,
        revision_no integer NOT NULL CHECK (revision_no >= 1),
        id uuid NOT NULL,
        kind text NOT NULL CHECK (kind IN ('value', 'retire', 'restore')),
        amount numeric CHECK (amount IS NULL OR scale(amount) <= 12),
        expression text,
        "references" text[] NOT NULL DEFAULT '{}',
        effective_at timestamptz NOT NULL,
        created_by jsonb NOT NULL,
        created_at timestamptz NOT NULL,
        PRIMARY KEY (organization_id, workspace_id, cost_id, revision_no),
        UNIQUE (organization_id, workspace_id, id),
        FOREIGN KEY (organization_id, workspace_id, cost_id) REFERENCES costs (organization_id, workspace_id, id) ON DELETE CASCADE,
        CHECK (CASE kind WHEN 'value' THEN (amount IS NULL) <> (expression IS NULL) ELSE amount IS NULL AND expression IS NULL END)
      )`);
    await q.query(`
      CREATE INDEX cost_revisions_effective_idx ON cost_revisions (organization_id, workspace_id, cost_id, effective_at DESC, revision_no DESC)`);

    await q.query(`
      CREATE TABLE product_version_costs (
        organization_id uuid NOT NULL,
        workspace_id uuid NOT NULL,
        product_version_id uuid NOT NULL,
        key text NOT NULL,
        cost_id uuid NOT NULL,
        scope text NOT NULL CHECK (scope IN ('ORG', 'PRODUCT')),
        revision_no integer NOT NULL,
        kind text CHECK (kind IN ('amount', 'expression')),
        expression text,
        value numeric,
        PRIMARY KEY (organization_id, workspace_id, product_version_id, scope, key),
        FOREIGN KEY (organization_id, workspace_id, product_version_id) REFERENCES product_versions (organization_id, workspace_id, id)
          ON DELETE CASCADE,
        FOREIGN KEY (organization_id, workspace_id, cost_id, revision_no) REFERENCES cost_revisions (organization_id, workspace_id, cost_id, revision_no)
      )`);
    await q.query(`
      CREATE INDEX product_version_costs_consumers_idx ON product_version_costs (organization_id, workspace_id, cost_id, product_version_id)`);

    await q.query(`
      CREATE TABLE changes (
        organization_id uuid NOT NULL,
        workspace_id uuid NOT NULL,
        id uuid NOT NULL,
        operation text NOT NULL CHECK (operation = 'catalog.publish_version'),
        subject_kind text NOT NULL CHECK (subject_kind IN ('plan', 'product')),
        subject_id uuid NOT NULL,
        staged_version_id uuid NOT NULL,
        status text NOT NULL CHECK (status IN ('pending', 'applied', 'canceled', 'failed')),
        scheduled_for timestamptz,
        pins jsonb NOT NULL DEFAULT '[]',
        release_name text,
        release_note text,
        result_version_id uuid,
        result_version integer,
        error_code text,
        error_message text,
        created_by jsonb NOT NULL,
        created_at timestamptz NOT NULL,
        applied_at timestamptz,
        canceled_at timestamptz,
        PRIMARY KEY (organization_id, workspace_id, id),
        CHECK (status <> 'pending' OR scheduled_for IS NOT NULL),
        CHECK ((status = 'applied') = (applied_at IS NOT NULL AND result_version_id IS NOT NULL)),
        CHECK ((status = 'canceled') = (canceled_at IS NOT NULL)),
        CHECK ((status = 'failed') = (error_code IS NOT NULL))
      )`);
    await q.query(
      `CREATE INDEX changes_subject_idx ON changes (organization_id, workspace_id, subject_kind, subject_id, created_at DESC)`,
    );
    await q.query(`CREATE INDEX changes_due_idx ON changes (scheduled_for) WHERE status = 'pending'`);

    await q.query(`
      CREATE TABLE cascade_runs (
        organization_id uuid NOT NULL,
        workspace_id uuid NOT NULL,
        id uuid NOT NULL,
        trigger text NOT NULL CHECK (trigger IN ('cost_value', 'cost_retire')),
        source_type text NOT NULL CHECK (source_type IN ('cost', 'product')),
        source_id uuid NOT NULL,
        source_version_id uuid NOT NULL,
        source_version integer NOT NULL,
        status text NOT NULL CHECK (status IN ('pending', 'running', 'completed')),
        effective_at timestamptz NOT NULL,
        created_by jsonb NOT NULL,
        created_at timestamptz NOT NULL,
        started_at timestamptz,
        completed_at timestamptz,
        PRIMARY KEY (organization_id, workspace_id, id)
      )`);
    await q.query(
      `CREATE INDEX cascade_runs_source_idx ON cascade_runs (organization_id, workspace_id, source_id, created_at DESC, id DESC)`,
    );
    await q.query(`
      CREATE TABLE cascade_tasks (
        organization_id uuid NOT NULL,
        workspace_id uuid NOT NULL,
        run_id uuid NOT NULL,
        subject_kind text NOT NULL CHECK (subject_kind IN ('plan', 'product')),
        subject_id uuid NOT NULL,
        status text NOT NULL CHECK (status IN ('pending', 'republished', 'unchanged', 'errored')),
        result_version_id uuid,
        result_version integer,
        attempts integer NOT NULL DEFAULT 0,
        error_code text,
        error_message text,
        updated_at timestamptz NOT NULL,
        PRIMARY KEY (organization_id, workspace_id, run_id, subject_kind, subject_id),
        FOREIGN KEY (organization_id, workspace_id, run_id) REFERENCES cascade_runs (organization_id, workspace_id, id)
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE cascade_tasks`);
    await q.query(`DROP TABLE cascade_runs`);
    await q.query(`DROP TABLE changes`);
    await q.query(`DROP TABLE product_version_costs`);
    await q.query(`DROP TABLE cost_revisions`);
    await q.query(`DROP TABLE costs`);
    await q.query(`ALTER TABLE products DROP COLUMN head_version_id, DROP COLUMN draft_version_id`);
    await q.query(`DROP TABLE product_versions`);
    await q.query(`DROP TABLE products`);
  }
}

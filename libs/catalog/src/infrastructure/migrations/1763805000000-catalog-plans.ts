import { MigrationInterface, QueryRunner } from 'typeorm';

/** The lifecycle columns of a version row (as product_versions has them). */
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
  error_details jsonb,
  CHECK ((status = 'archived') = (archived_reason IS NOT NULL)),
  CHECK ((origin = 'cascade') = (cascade_source IS NOT NULL)),
  CHECK (status = 'draft' OR archived_reason = 'discarded' OR origin IS NOT NULL),
  CHECK (status <> 'scheduled' OR (scheduled_for IS NOT NULL AND change_id IS NOT NULL)),
  CHECK (status <> 'published' OR (effective_from IS NOT NULL AND effective_to IS NULL)),
  CHECK (archived_reason IS DISTINCT FROM 'superseded' OR effective_to IS NOT NULL),
  CHECK (effective_to >= effective_from),
  CHECK ((archived_reason = 'errored') = (error_code IS NOT NULL))`;

const ALLOWANCE_RULES = `
  CHECK (min_quantity >= 0 AND default_quantity >= min_quantity AND (max_quantity IS NULL OR max_quantity >= greatest(default_quantity, 1))),
  CHECK (refresh_unit IS NULL OR refresh_unit IN ('day', 'week', 'month', 'year', 'billing_cycle', 'never')),
  CHECK ((refresh_count IS NOT NULL) = (refresh_unit IS NOT NULL AND refresh_unit <> 'never')),
  CHECK (refresh_count IS NULL OR refresh_count BETWEEN 1 AND 1000),
  CHECK (included_quantity IS NULL OR included_quantity >= 0),
  CHECK (included_quantity IS NOT NULL OR (refresh_unit IS NULL AND NOT rollover_enabled AND unit_limit IS NULL)),
  CHECK (rollover_enabled OR (rollover_expiry_periods IS NULL AND rollover_max IS NULL)),
  CHECK (NOT rollover_enabled OR refresh_unit IS DISTINCT FROM 'never'),
  CHECK (rollover_expiry_periods IS NULL OR rollover_expiry_periods >= 1),
  CHECK (rollover_max IS NULL OR rollover_max >= 0),
  CHECK (unit_limit IS NULL OR (unit_limit > 0 AND (refresh_unit IS NULL OR refresh_unit = 'never') AND unit_limit >= included_quantity))`;

/**
 * Catalog II: plans on the shared version line, their memberships (the terms of each product on
 * a version), the live tracking mode of each membership, minimal subscriptions with their product
 * pins, and migrations with one outcome per subscription. Every key leads with
 * (organization_id, workspace_id). The list indexes serve every filter and sort of the plan list.
 */
export class CatalogPlans1763805000000 implements MigrationInterface {
  name = 'CatalogPlans1763805000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE EXTENSION IF NOT EXISTS pg_trgm`);
    await q.query(`
      CREATE TABLE plans (
        organization_id uuid NOT NULL,
        workspace_id uuid NOT NULL,
        id uuid NOT NULL,
        name text NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
        description text,
        public_description text,
        external_id text CHECK (length(external_id) BETWEEN 1 AND 255),
        metadata jsonb NOT NULL DEFAULT '{}',
        custom_fields jsonb NOT NULL DEFAULT '{}',
        translations jsonb NOT NULL DEFAULT '{}',
        tags text[] NOT NULL DEFAULT '{}',
        price_cadence_unit text NOT NULL DEFAULT 'month' CHECK (price_cadence_unit IN ('week', 'month', 'year')),
        status text NOT NULL CHECK (status IN ('draft', 'scheduled', 'active', 'archived')),
        status_order smallint GENERATED ALWAYS AS (CASE status WHEN 'draft' THEN 0 WHEN 'scheduled' THEN 1 WHEN 'active' THEN 2 ELSE 3 END) STORED,
        version integer NOT NULL DEFAULT 1,
        head_version_id uuid,
        draft_version_id uuid,
        next_version_no integer NOT NULL DEFAULT 1,
        next_release_at timestamptz,
        published_at timestamptz,
        archived_at timestamptz,
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL,
        deleted_at timestamptz,
        PRIMARY KEY (organization_id, workspace_id, id),
        CHECK ((status = 'archived') = (archived_at IS NOT NULL)),
        CHECK (status <> 'active' OR head_version_id IS NOT NULL)
      )`);
    const live = `WHERE deleted_at IS NULL`;
    const lead = `organization_id, workspace_id`;
    for (const [name, columns, where] of [
      ['plans_created_idx', `${lead}, created_at DESC, id DESC`, live],
      ['plans_name_sort_idx', `${lead}, lower(name) COLLATE "C", name COLLATE "C", id`, live],
      ['plans_name_idx', `${lead}, name`, live],
      ['plans_external_search_idx', `${lead}, lower(external_id) COLLATE "C"`, `${live} AND external_id IS NOT NULL`],
      ['plans_status_idx', `${lead}, status_order, id`, live],
      ['plans_description_asc_idx', `${lead}, (description IS NULL), description COLLATE "C", id`, live],
      ['plans_description_desc_idx', `${lead}, (description IS NULL), description COLLATE "C" DESC, id DESC`, live],
      ['plans_updated_idx', `${lead}, updated_at, id`, live],
      ['plans_published_idx', `${lead}, published_at, id`, live],
      ['plans_version_idx', `${lead}, version, id`, live],
      ['plans_next_release_idx', `${lead}, next_release_at`, `${live} AND next_release_at IS NOT NULL`],
    ]) {
      await q.query(`CREATE INDEX ${name} ON plans (${columns}) ${where}`);
    }
    await q.query(
      `CREATE UNIQUE INDEX plans_external_id_key ON plans (${lead}, external_id) ${live} AND external_id IS NOT NULL`,
    );
    await q.query(`CREATE INDEX plans_tags_idx ON plans USING gin (tags) ${live}`);
    await q.query(`CREATE INDEX plans_custom_fields_idx ON plans USING gin (custom_fields jsonb_path_ops) ${live}`);
    await q.query(`CREATE INDEX plans_name_trgm_idx ON plans USING gin (lower(name) gin_trgm_ops) ${live}`);
    await q.query(
      `CREATE INDEX plans_external_trgm_idx ON plans USING gin (lower(external_id) gin_trgm_ops) ${live} AND external_id IS NOT NULL`,
    );

    await q.query(`
      CREATE TABLE plan_versions (
        organization_id uuid NOT NULL,
        workspace_id uuid NOT NULL,
        plan_id uuid NOT NULL,
        ${VERSION_LIFECYCLE},
        name text NOT NULL,
        description text,
        public_description text,
        external_id text,
        metadata jsonb NOT NULL DEFAULT '{}',
        custom_fields jsonb NOT NULL DEFAULT '{}',
        translations jsonb NOT NULL DEFAULT '{}',
        price_cadence_unit text NOT NULL CHECK (price_cadence_unit IN ('week', 'month', 'year')),
        PRIMARY KEY (organization_id, workspace_id, id),
        FOREIGN KEY (organization_id, workspace_id, plan_id) REFERENCES plans (organization_id, workspace_id, id)
      )`);
    await q.query(`CREATE UNIQUE INDEX plan_versions_number_key ON plan_versions (${lead}, plan_id, version)`);
    await q.query(`CREATE UNIQUE INDEX plan_versions_one_draft ON plan_versions (${lead}, plan_id) WHERE status = 'draft'`);
    await q.query(`CREATE UNIQUE INDEX plan_versions_one_head ON plan_versions (${lead}, plan_id) WHERE status = 'published'`);
    await q.query(
      `CREATE UNIQUE INDEX plan_versions_queue_slot ON plan_versions (${lead}, plan_id, scheduled_for) WHERE status = 'scheduled'`,
    );
    await q.query(
      `CREATE UNIQUE INDEX plan_versions_scheduled_change ON plan_versions (${lead}, change_id) WHERE status = 'scheduled'`,
    );
    await q.query(`
      ALTER TABLE plans
        ADD FOREIGN KEY (organization_id, workspace_id, head_version_id) REFERENCES plan_versions (organization_id, workspace_id, id)
          DEFERRABLE INITIALLY DEFERRED,
        ADD FOREIGN KEY (organization_id, workspace_id, draft_version_id) REFERENCES plan_versions (organization_id, workspace_id, id)
          DEFERRABLE INITIALLY DEFERRED`);

    await q.query(`
      CREATE TABLE plan_version_products (
        organization_id uuid NOT NULL,
        workspace_id uuid NOT NULL,
        plan_version_id uuid NOT NULL,
        product_id uuid NOT NULL,
        position integer NOT NULL,
        product_version_id uuid,
        track_mode text CHECK (track_mode IN ('latest', 'pinned')),
        default_quantity integer NOT NULL,
        min_quantity integer NOT NULL,
        max_quantity integer,
        included_quantity numeric,
        refresh_count integer,
        refresh_unit text,
        rollover_enabled boolean NOT NULL DEFAULT false,
        rollover_expiry_periods integer,
        rollover_max numeric,
        unit_limit numeric,
        PRIMARY KEY (organization_id, workspace_id, plan_version_id, product_id),
        FOREIGN KEY (organization_id, workspace_id, plan_version_id) REFERENCES plan_versions (organization_id, workspace_id, id) ON DELETE CASCADE,
        FOREIGN KEY (organization_id, workspace_id, product_id) REFERENCES products (organization_id, workspace_id, id),
        FOREIGN KEY (organization_id, workspace_id, product_version_id) REFERENCES product_versions (organization_id, workspace_id, id),
        ${ALLOWANCE_RULES}
      )`);
    await q.query(
      `CREATE INDEX plan_version_products_product_idx ON plan_version_products (${lead}, product_id, plan_version_id)`,
    );
    await q.query(
      `CREATE INDEX plan_version_products_resolved_idx ON plan_version_products (${lead}, product_version_id) WHERE product_version_id IS NOT NULL`,
    );

    await q.query(`
      CREATE TABLE plan_product_tracking (
        organization_id uuid NOT NULL,
        workspace_id uuid NOT NULL,
        plan_id uuid NOT NULL,
        product_id uuid NOT NULL,
        track_mode text NOT NULL CHECK (track_mode IN ('latest', 'pinned')),
        pinned_product_version_id uuid,
        PRIMARY KEY (organization_id, workspace_id, plan_id, product_id),
        FOREIGN KEY (organization_id, workspace_id, plan_id) REFERENCES plans (organization_id, workspace_id, id),
        FOREIGN KEY (organization_id, workspace_id, product_id) REFERENCES products (organization_id, workspace_id, id),
        FOREIGN KEY (organization_id, workspace_id, pinned_product_version_id) REFERENCES product_versions (organization_id, workspace_id, id)
      )`);
    await q.query(
      `CREATE INDEX plan_product_tracking_latest_idx ON plan_product_tracking (${lead}, product_id) WHERE track_mode = 'latest'`,
    );

    await q.query(`
      CREATE TABLE subscriptions (
        organization_id uuid NOT NULL,
        workspace_id uuid NOT NULL,
        id uuid NOT NULL,
        customer_id uuid NOT NULL,
        plan_id uuid NOT NULL,
        plan_version_id uuid NOT NULL,
        status text NOT NULL CHECK (status IN ('active', 'canceled')),
        billing_cadence text NOT NULL CHECK (billing_cadence IN ('week', 'month', 'year')),
        plan_track_mode text NOT NULL DEFAULT 'pinned' CHECK (plan_track_mode IN ('pinned', 'latest')),
        version_change_strategy text NOT NULL DEFAULT 'next_period' CHECK (version_change_strategy IN ('immediate', 'next_period')),
        current_period_start timestamptz NOT NULL,
        current_period_end timestamptz NOT NULL,
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL,
        canceled_at timestamptz,
        PRIMARY KEY (organization_id, workspace_id, id),
        FOREIGN KEY (organization_id, workspace_id, customer_id) REFERENCES customers (organization_id, workspace_id, id),
        FOREIGN KEY (organization_id, workspace_id, plan_id) REFERENCES plans (organization_id, workspace_id, id),
        FOREIGN KEY (organization_id, workspace_id, plan_version_id) REFERENCES plan_versions (organization_id, workspace_id, id),
        CHECK (current_period_end > current_period_start),
        CHECK ((status = 'canceled') = (canceled_at IS NOT NULL))
      )`);
    await q.query(`CREATE INDEX subscriptions_list_idx ON subscriptions (${lead}, created_at DESC, id DESC)`);
    await q.query(`CREATE INDEX subscriptions_plan_idx ON subscriptions (${lead}, plan_id, status, plan_track_mode, id)`);
    await q.query(
      `CREATE INDEX subscriptions_version_idx ON subscriptions (${lead}, plan_version_id, status, created_at DESC, id DESC)`,
    );

    await q.query(`
      CREATE TABLE subscription_product_pins (
        organization_id uuid NOT NULL,
        workspace_id uuid NOT NULL,
        subscription_id uuid NOT NULL,
        product_id uuid NOT NULL,
        product_version_id uuid NOT NULL,
        PRIMARY KEY (organization_id, workspace_id, subscription_id, product_id),
        FOREIGN KEY (organization_id, workspace_id, subscription_id) REFERENCES subscriptions (organization_id, workspace_id, id) ON DELETE CASCADE,
        FOREIGN KEY (organization_id, workspace_id, product_version_id) REFERENCES product_versions (organization_id, workspace_id, id)
      )`);

    await q.query(`
      CREATE TABLE plan_migrations (
        organization_id uuid NOT NULL,
        workspace_id uuid NOT NULL,
        id uuid NOT NULL,
        plan_id uuid NOT NULL,
        trigger text NOT NULL CHECK (trigger IN ('manual', 'publish')),
        mode text NOT NULL CHECK (mode IN ('IMMEDIATE', 'SCHEDULED')),
        target_version_id uuid NOT NULL,
        target_version integer NOT NULL,
        proration_strategy text NOT NULL CHECK (proration_strategy IN ('create_prorations', 'none', 'always_invoice')),
        scheduled_at timestamptz,
        status text NOT NULL CHECK (status IN ('scheduled', 'running', 'completed', 'canceled')),
        created_by jsonb NOT NULL,
        created_at timestamptz NOT NULL,
        started_at timestamptz,
        completed_at timestamptz,
        canceled_at timestamptz,
        PRIMARY KEY (organization_id, workspace_id, id),
        FOREIGN KEY (organization_id, workspace_id, plan_id) REFERENCES plans (organization_id, workspace_id, id),
        FOREIGN KEY (organization_id, workspace_id, target_version_id) REFERENCES plan_versions (organization_id, workspace_id, id),
        CHECK ((mode = 'SCHEDULED') = (scheduled_at IS NOT NULL))
      )`);
    await q.query(`CREATE INDEX plan_migrations_plan_idx ON plan_migrations (${lead}, plan_id, created_at DESC, id DESC)`);
    await q.query(`
      CREATE TABLE plan_migration_outcomes (
        organization_id uuid NOT NULL,
        workspace_id uuid NOT NULL,
        migration_id uuid NOT NULL,
        subscription_id uuid NOT NULL,
        status text NOT NULL CHECK (status IN ('pending', 'moved', 'skipped', 'failed')),
        reason text,
        from_version_id uuid NOT NULL,
        to_version_id uuid NOT NULL,
        effective_at timestamptz,
        proration_strategy text NOT NULL,
        processed_at timestamptz,
        PRIMARY KEY (organization_id, workspace_id, migration_id, subscription_id),
        FOREIGN KEY (organization_id, workspace_id, migration_id) REFERENCES plan_migrations (organization_id, workspace_id, id),
        FOREIGN KEY (organization_id, workspace_id, subscription_id) REFERENCES subscriptions (organization_id, workspace_id, id),
        CHECK ((status IN ('skipped', 'failed')) = (reason IS NOT NULL))
      )`);
    await q.query(
      `CREATE INDEX plan_migration_outcomes_status_idx ON plan_migration_outcomes (${lead}, migration_id, status, subscription_id)`,
    );
    await q.query(`
      CREATE TABLE subscription_version_changes (
        organization_id uuid NOT NULL,
        workspace_id uuid NOT NULL,
        id uuid NOT NULL,
        subscription_id uuid NOT NULL,
        migration_id uuid,
        from_version_id uuid NOT NULL,
        to_version_id uuid NOT NULL,
        proration_strategy text NOT NULL,
        effective_at timestamptz NOT NULL,
        created_at timestamptz NOT NULL,
        PRIMARY KEY (organization_id, workspace_id, id),
        FOREIGN KEY (organization_id, workspace_id, subscription_id) REFERENCES subscriptions (organization_id, workspace_id, id)
      )`);
    await q.query(
      `CREATE INDEX subscription_version_changes_idx ON subscription_version_changes (${lead}, subscription_id, effective_at DESC)`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    for (const table of [
      'subscription_version_changes',
      'plan_migration_outcomes',
      'plan_migrations',
      'subscription_product_pins',
      'subscriptions',
      'plan_product_tracking',
      'plan_version_products',
    ]) {
      await q.query(`DROP TABLE ${table}`);
    }
    await q.query(`ALTER TABLE plans DROP COLUMN head_version_id, DROP COLUMN draft_version_id`);
    await q.query(`DROP TABLE plan_versions`);
    await q.query(`DROP TABLE plans`);
  }
}

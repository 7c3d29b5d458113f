import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * An Idempotency-Key is scoped to (organization, workspace, principal, key) alone. The method
 * and the raw URL used to be part of the scope, so one key sent to the same transfer spelled
 * three ways (a wallet id in upper case, a percent-encoded digit, the unprefixed alias) made
 * three transfers, and a key reused on another route ran again instead of being refused. The
 * method, route template and canonical path parameters are now part of the request's
 * fingerprint: the same key on another route answers 422 IDEMPOTENCY_KEY_REUSED. `method` and
 * `route` (now the route template) stay on the record for whoever reads it.
 *
 * Records written before this migration carry the old fingerprint: a retry of such a request
 * within their 24 hours answers 422 IDEMPOTENCY_KEY_REUSED rather than a replay, never a second
 * effect. Where one key had been used on several routes, only its newest record is kept.
 */
export class IdempotencyKeyScope1763801100000 implements MigrationInterface {
  name = 'IdempotencyKeyScope1763801100000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      DELETE FROM idempotency_records r
       USING idempotency_records newer
       WHERE (newer.organization_id, newer.workspace_id, newer.principal_id, newer.idempotency_key)
             = (r.organization_id, r.workspace_id, r.principal_id, r.idempotency_key)
         AND (newer.created_at, newer.method, newer.route) > (r.created_at, r.method, r.route)`);
    await q.query(`ALTER TABLE idempotency_records DROP CONSTRAINT idempotency_records_pkey`);
    await q.query(
      `ALTER TABLE idempotency_records ADD PRIMARY KEY (organization_id, workspace_id, principal_id, idempotency_key)`,
    );
    await q.query(
      `COMMENT ON COLUMN idempotency_records.route IS 'route template the key was first used on (not part of the key)'`,
    );
    await q.query('DROP FUNCTION idempotency_claim(uuid, uuid, uuid, text, text, text)');
    await q.query(`
      CREATE FUNCTION idempotency_claim(p_organization_id uuid, p_workspace_id uuid, p_principal_id uuid, p_key text)
      RETURNS TABLE (locked boolean, fingerprint text, response_status smallint, response_headers jsonb, response_body text)
      LANGUAGE plpgsql VOLATILE AS $$
      DECLARE
        took_lock boolean := pg_try_advisory_xact_lock(hashtextextended(
          concat_ws(E'\\n', p_organization_id, p_workspace_id, p_principal_id, p_key), 0));
      BEGIN
        RETURN QUERY
          SELECT took_lock, r.fingerprint, r.response_status, r.response_headers, r.response_body
            FROM idempotency_records r
           WHERE r.organization_id = p_organization_id AND r.workspace_id = p_workspace_id AND r.principal_id = p_principal_id
             AND r.idempotency_key = p_key;
        IF NOT FOUND THEN
          RETURN QUERY SELECT took_lock, NULL::text, NULL::smallint, NULL::jsonb, NULL::text;
        END IF;
      END
      $$`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP FUNCTION idempotency_claim(uuid, uuid, uuid, text)');
    await q.query(`
      CREATE FUNCTION idempotency_claim(p_organization_id uuid, p_workspace_id uuid, p_principal_id uuid, p_method text,
                                        p_route text, p_key text)
      RETURNS TABLE (locked boolean, fingerprint text, response_status smallint, response_headers jsonb, response_body text)
      LANGUAGE plpgsql VOLATILE AS $$
      DECLARE
        took_lock boolean := pg_try_advisory_xact_lock(hashtextextended(
          concat_ws(E'\\n', p_organization_id, p_workspace_id, p_principal_id, p_method, p_route, p_key), 0));
      BEGIN
        RETURN QUERY
          SELECT took_lock, r.fingerprint, r.response_status, r.response_headers, r.response_body
            FROM idempotency_records r
           WHERE r.organization_id = p_organization_id AND r.workspace_id = p_workspace_id AND r.principal_id = p_principal_id
             AND r.method = p_method AND r.route = p_route AND r.idempotency_key = p_key;
        IF NOT FOUND THEN
          RETURN QUERY SELECT took_lock, NULL::text, NULL::smallint, NULL::jsonb, NULL::text;
        END IF;
      END
      $$`);
    await q.query(`COMMENT ON COLUMN idempotency_records.route IS NULL`);
    await q.query(`ALTER TABLE idempotency_records DROP CONSTRAINT idempotency_records_pkey`);
    await q.query(
      `ALTER TABLE idempotency_records ADD PRIMARY KEY (organization_id, workspace_id, principal_id, method, route, idempotency_key)`,
    );
  }
}

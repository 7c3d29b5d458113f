import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A completed request replays even while another request holds its key (typically another
 * replay): a stored record is final, so reading it needs no lock. Only a key without a record
 * and held by someone else is "in use".
 */
export class IdempotencyConcurrentReplays1763800500000 implements MigrationInterface {
  name = 'IdempotencyConcurrentReplays1763800500000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE OR REPLACE FUNCTION idempotency_claim(p_organization_id uuid, p_workspace_id uuid, p_principal_id uuid, p_method text,
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
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE OR REPLACE FUNCTION idempotency_claim(p_organization_id uuid, p_workspace_id uuid, p_principal_id uuid, p_method text,
                                                   p_route text, p_key text)
      RETURNS TABLE (locked boolean, fingerprint text, response_status smallint, response_headers jsonb, response_body text)
      LANGUAGE plpgsql VOLATILE AS $$
      BEGIN
        IF NOT pg_try_advisory_xact_lock(hashtextextended(
             concat_ws(E'\\n', p_organization_id, p_workspace_id, p_principal_id, p_method, p_route, p_key), 0)) THEN
          RETURN QUERY SELECT false, NULL::text, NULL::smallint, NULL::jsonb, NULL::text;
          RETURN;
        END IF;
        RETURN QUERY
          SELECT true, r.fingerprint, r.response_status, r.response_headers, r.response_body
            FROM idempotency_records r
           WHERE r.organization_id = p_organization_id AND r.workspace_id = p_workspace_id AND r.principal_id = p_principal_id
             AND r.method = p_method AND r.route = p_route AND r.idempotency_key = p_key;
        IF NOT FOUND THEN
          RETURN QUERY SELECT true, NULL::text, NULL::smallint, NULL::jsonb, NULL::text;
        END IF;
      END
      $$`);
  }
}

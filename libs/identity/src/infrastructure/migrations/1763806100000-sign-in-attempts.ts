import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Sign-in attempts per account (the organization named and a hash of the e-mail address, so an
 * unknown address is throttled exactly like a known one) and per client address (under the nil
 * organization: an address is not a tenant's). Kept in the database, not in process, so that
 * several instances share one count and one lock. `locked_until` is the growing delay: no
 * attempt is admitted before it.
 */
export class SignInAttempts1763806100000 implements MigrationInterface {
  name = 'SignInAttempts1763806100000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE sign_in_attempts (
        organization_id uuid NOT NULL,
        subject text NOT NULL,
        attempts integer NOT NULL CHECK (attempts >= 0),
        locked_until timestamptz NOT NULL,
        last_attempt_at timestamptz NOT NULL,
        PRIMARY KEY (organization_id, subject)
      )`);
    await q.query('CREATE INDEX sign_in_attempts_last_attempt_at_idx ON sign_in_attempts (last_attempt_at)');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE sign_in_attempts');
  }
}

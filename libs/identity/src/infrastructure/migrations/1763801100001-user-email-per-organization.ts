import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A user's email address is unique within its organization only: globally unique, it let one
 * organization learn that an address existed in another (409) and squat it.
 *
 * Sign-in names the organization (`organization_id`). Users who exist when this runs had
 * globally unique addresses and clients that sign in without it; they keep signing in that way
 * (`signs_in_without_organization`, unique per address by the partial index, and never set for a
 * new user). Whether an address exists elsewhere therefore changes no answer: a user created
 * later always names their organization, so nothing an organization can do with its own users
 * reveals or blocks another's.
 */
export class UserEmailPerOrganization1763801100001 implements MigrationInterface {
  name = 'UserEmailPerOrganization1763801100001';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE users ADD COLUMN signs_in_without_organization boolean NOT NULL DEFAULT false`);
    await q.query(`UPDATE users SET signs_in_without_organization = true`);
    await q.query(`DROP INDEX users_email_key`);
    await q.query(`CREATE UNIQUE INDEX users_organization_email_key ON users (organization_id, email)`);
    await q.query(
      `CREATE UNIQUE INDEX users_sign_in_without_organization_key ON users (email) WHERE signs_in_without_organization`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX users_sign_in_without_organization_key`);
    await q.query(`DROP INDEX users_organization_email_key`);
    // Fails while an address is used in two organizations: those users must be told apart first.
    await q.query(`CREATE UNIQUE INDEX users_email_key ON users (email)`);
    await q.query(`ALTER TABLE users DROP COLUMN signs_in_without_organization`);
  }
}

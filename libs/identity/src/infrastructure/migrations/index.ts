import { MigrationClass } from '@app/shared-kernel';
import { Identity1763800100000 } from './1763800100000-identity';
import { UserEmailPerOrganization1763801100001 } from './1763801100001-user-email-per-organization';
import { CustomerVerifications1763802000000 } from './1763802000000-customer-verifications';
import { SignInAttempts1763806100000 } from './1763806100000-sign-in-attempts';
import { ApiKeyVersion1763807300000 } from './1763807300000-api-key-version';
import { AuditListByPrimaryKey1763809300000 } from './1763809300000-audit-list-by-primary-key';

/**
 * Identity's tables: organizations, workspaces, users, sessions, API keys, customers, approvals, audit events, verifications, sign-in attempts.
 * A new migration of this context goes in this folder and is appended here; never edited after landing.
 */
export const identityMigrations: readonly MigrationClass[] = [
  Identity1763800100000,
  UserEmailPerOrganization1763801100001,
  CustomerVerifications1763802000000,
  SignInAttempts1763806100000,
  ApiKeyVersion1763807300000,
  AuditListByPrimaryKey1763809300000,
];

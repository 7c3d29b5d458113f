export * from './identity.module';
export { ALL_SCOPES, SCOPE_CATALOG, isOrganizationLevel, isScope, ROLES } from './domain/scopes';
export type { Scope, ScopeDescription, Role } from './domain/scopes';
export { APPROVAL_CHECKPOINTS } from './domain/workspace';
export type { WorkspaceMode, WorkspaceSettings, ApprovalCheckpoint } from './domain/workspace';
export { CustomerCreated } from './domain/customer';
export { CustomerWallets } from './domain/customer-wallets';
export { AuthenticateRequestQuery } from './application/authentication/authenticate-request.query';
export { CreateApiKeyCommand } from './application/api-keys/create-api-key.command';
export type { CreateApiKeyInput } from './application/api-keys/create-api-key.command';
export { RotateApiKeyCommand } from './application/api-keys/rotate-api-key.command';
export { RevokeApiKeyCommand } from './application/api-keys/revoke-api-key.command';
export { UpdateApiKeyCommand } from './application/api-keys/update-api-key.command';
export type { UpdateApiKeyInput } from './application/api-keys/update-api-key.command';
export { COMPLETE_ROTATION_JOB } from './application/api-keys/rotation-completer';
export { ListApiKeysQuery } from './application/api-keys/list-api-keys.query';
export type { ApiKeyView } from './application/api-keys/api-key.view';
export { apiKeyResponse } from './application/api-keys/api-key-response';
export { CreateWorkspaceCommand } from './application/workspaces/create-workspace.command';
export { UpdateWorkspaceCommand } from './application/workspaces/update-workspace.command';
export { ListWorkspacesQuery } from './application/workspaces/list-workspaces.query';
export type { WorkspaceView } from './application/workspaces/workspace.view';
export type { UpdateWorkspaceResult } from './application/workspaces/update-workspace.command';
export { BootstrapOrganizationCommand } from './application/bootstrap/bootstrap-organization.command';
export { BootstrapIfEmptyCommand } from './application/bootstrap/bootstrap-if-empty.command';
export type { BootstrapResult } from './application/bootstrap/bootstrap-organization.command';
export { CreateSessionCommand } from './application/sessions/create-session.command';
export { EndSessionCommand } from './application/sessions/end-session.command';
export type { SessionView } from './application/sessions/create-session.command';
export { CreateCustomerCommand } from './application/customers/create-customer.command';
export { GetCustomerQuery } from './application/customers/get-customer.query';
export { ListCustomersQuery } from './application/customers/list-customers.query';
export type { CustomerView } from './application/customers/customer.view';
export { customerResponse } from './application/customers/customer-response';
export { verificationResponse, verificationSummaryResponse } from './application/verifications/verification-response';
export { HoldForApprovalCommand } from './application/approvals/hold-for-approval.command';
export { DecideApprovalCommand } from './application/approvals/decide-approval.command';
export { GetApprovalQuery } from './application/approvals/get-approval.query';
export type { ApprovalView } from './application/approvals/approval.view';
export type { HoldResult } from './application/approvals/hold-for-approval.command';
export { approvalResponse } from './application/approvals/approval-response';
export { ExecutesApprovalCheckpoint } from './application/approvals/approval-executor';
export type { ApprovalExecutor } from './application/approvals/approval-executor';
export { ListAuditEventsQuery } from './application/audit/list-audit-events.query';
export type { AuditEventView, AuditEventFilters } from './application/audit/list-audit-events.query';
export { CreateUserCommand } from './application/users/create-user.command';
export { ListUsersQuery } from './application/users/list-users.query';
export type { UserView } from './application/users/user.view';
export { CreateSandboxVerificationCommand } from './application/verifications/create-sandbox-verification.command';
export { GetVerificationQuery } from './application/verifications/get-verification.query';
export { ListVerificationsQuery } from './application/verifications/list-verifications.query';
export { OverrideVerificationStatusCommand } from './application/verifications/override-verification-status.command';
export { ProcessVerificationWebhookCommand } from './application/verifications/process-verification-webhook.command';
export type { VerificationFilters } from './application/verifications/list-verifications.query';
export type { VerificationSummaryView, VerificationView } from './application/verifications/verification.view';
export { EXPIRE_VERIFICATION_JOB, RETRY_VERIFICATION_JOB } from './application/verifications/verification-lifecycle';
export {
  ADMIN_TRANSITIONS,
  CustomerVerificationUpdated,
  PROVIDER_TRANSITIONS,
  RETRY_DELAYS_MINUTES,
  VERIFICATION_STATUSES,
  VERIFICATION_TYPES,
} from './domain/customer-verification';
export type { VerificationStatus, VerificationType } from './domain/customer-verification';
export { identityMigrations } from './infrastructure/migrations';
export { IdentityErrors } from './domain/identity-errors';

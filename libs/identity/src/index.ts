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
export { RotateApiKeyCommand, RevokeApiKeyCommand } from './application/api-keys/api-key-lifecycle.commands';
export { UpdateApiKeyCommand } from './application/api-keys/update-api-key.command';
export type { UpdateApiKeyInput } from './application/api-keys/update-api-key.command';
export { COMPLETE_ROTATION_JOB } from './application/api-keys/api-key-lifecycle.handlers';
export { ListApiKeysQuery } from './application/api-keys/list-api-keys.query';
export type { ApiKeyView } from './application/api-keys/api-key.view';
export { apiKeyResponse } from './application/api-keys/api-key-response';
export { CreateWorkspaceCommand, UpdateWorkspaceCommand, ListWorkspacesQuery } from './application/workspaces/workspace.commands';
export type { WorkspaceView } from './application/workspaces/workspace.view';
export type { UpdateWorkspaceResult } from './application/workspaces/workspace.commands';
export { BootstrapOrganizationCommand, BootstrapIfEmptyCommand } from './application/bootstrap/bootstrap-organization.command';
export type { BootstrapResult } from './application/bootstrap/bootstrap-organization.command';
export { CreateSessionCommand, EndSessionCommand } from './application/sessions/session.commands';
export type { SessionView } from './application/sessions/session.commands';
export { CreateCustomerCommand, GetCustomerQuery, ListCustomersQuery } from './application/customers/customer.commands';
export type { CustomerView } from './application/customers/customer.commands';
export { customerResponse } from './application/customers/customer-response';
export { verificationResponse, verificationSummaryResponse } from './application/verifications/verification-response';
export { HoldForApprovalCommand, DecideApprovalCommand, GetApprovalQuery } from './application/approvals/approval.commands';
export type { ApprovalView, HoldResult } from './application/approvals/approval.commands';
export { approvalResponse } from './application/approvals/approval-response';
export { ExecutesApprovalCheckpoint } from './application/approvals/approval-executor';
export type { ApprovalExecutor } from './application/approvals/approval-executor';
export { ListAuditEventsQuery } from './application/audit/list-audit-events.query';
export type { AuditEventView, AuditEventFilters } from './application/audit/list-audit-events.query';
export { CreateUserCommand, ListUsersQuery } from './application/users/user.commands';
export type { UserView } from './application/users/user.commands';
export {
  CreateSandboxVerificationCommand,
  GetVerificationQuery,
  ListVerificationsQuery,
  OverrideVerificationStatusCommand,
  ProcessVerificationWebhookCommand,
} from './application/verifications/verification.commands';
export type {
  VerificationFilters,
  VerificationSummaryView,
  VerificationView,
} from './application/verifications/verification.commands';
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

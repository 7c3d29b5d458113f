import { DynamicModule, Module, Type } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { ApiKeyLifecycleHandlers } from './application/api-keys';
import { ApiKeyReads } from './application/api-keys/api-key-reads';
import { DecideApprovalHandler } from './application/approvals/decide-approval.handler';
import { GetApprovalHandler } from './application/approvals/get-approval.handler';
import { HoldForApprovalHandler } from './application/approvals/hold-for-approval.handler';
import { ListAuditEventsHandler } from './application/audit/list-audit-events.handler';
import { AuthenticateRequestHandler } from './application/authentication/authenticate-request.handler';
import { CredentialCache } from './application/authentication/credential-cache';
import { CredentialChanges } from './application/authentication/credential-changes';
import { LastUsedRecorder } from './application/authentication/last-used-recorder';
import { WorkspaceDirectory } from './application/authentication/workspace-directory';
import { BootstrapIfEmptyHandler } from './application/bootstrap/bootstrap-if-empty.handler';
import { BootstrapOrganizationHandler } from './application/bootstrap/bootstrap-organization.handler';
import { CreateCustomerHandler } from './application/customers/create-customer.handler';
import { GetCustomerHandler } from './application/customers/get-customer.handler';
import { ListCustomersHandler } from './application/customers/list-customers.handler';
import { CreateSessionHandler } from './application/sessions/create-session.handler';
import { EndSessionHandler } from './application/sessions/end-session.handler';
import { SignInThrottle } from './application/sessions/sign-in-throttle';
import { CreateUserHandler } from './application/users/create-user.handler';
import { ListUsersHandler } from './application/users/list-users.handler';
import { CreateWorkspaceHandler } from './application/workspaces/create-workspace.handler';
import { ListWorkspacesHandler } from './application/workspaces/list-workspaces.handler';
import { WorkspaceReads } from './application/workspaces/workspace-reads';
import { UpdateWorkspaceHandler } from './application/workspaces/update-workspace.handler';
import { WorkspaceApprovalSettingsExecutor } from './application/workspaces/workspace-approval-settings-executor';
import { VerificationLifecycle, VerificationProviders } from './application/verifications/verification-lifecycle';
import { CreateSandboxVerificationHandler } from './application/verifications/create-sandbox-verification.handler';
import { GetVerificationHandler } from './application/verifications/get-verification.handler';
import { SandboxChecks } from './application/verifications/sandbox-checks';
import { VerificationReads } from './application/verifications/verification-reads';
import { ListVerificationsHandler } from './application/verifications/list-verifications.handler';
import { OverrideVerificationStatusHandler } from './application/verifications/override-verification-status.handler';
import { ProcessVerificationWebhookHandler } from './application/verifications/process-verification-webhook.handler';
import { CustomerVerificationRepository } from './domain/customer-verification.repository';
import { ApiKeyRepository, OrganizationRepository, WorkspaceRepository } from './domain/repositories';
import { SandboxVerificationProvider } from './infrastructure/sandbox-verification-provider';
import { TypeOrmApiKeyReads } from './infrastructure/typeorm-api-key.reads';
import { TypeOrmApiKeyRepository } from './infrastructure/typeorm-api-key.repository';
import { TypeOrmVerificationReads } from './infrastructure/typeorm-customer-verification.reads';
import { TypeOrmCustomerVerificationRepository } from './infrastructure/typeorm-customer-verification.repository';
import { TypeOrmWorkspaceReads } from './infrastructure/typeorm-workspace.reads';
import { TypeOrmOrganizationRepository, TypeOrmWorkspaceRepository } from './infrastructure/typeorm-workspace.repository';

const PROVIDERS = [
  { provide: ApiKeyRepository, useClass: TypeOrmApiKeyRepository },
  { provide: WorkspaceRepository, useClass: TypeOrmWorkspaceRepository },
  { provide: OrganizationRepository, useClass: TypeOrmOrganizationRepository },
  { provide: ApiKeyReads, useClass: TypeOrmApiKeyReads },
  { provide: WorkspaceReads, useClass: TypeOrmWorkspaceReads },
  CredentialCache,
  CredentialChanges,
  WorkspaceDirectory,
  LastUsedRecorder,
  AuthenticateRequestHandler,
  ...ApiKeyLifecycleHandlers,
  CreateWorkspaceHandler,
  UpdateWorkspaceHandler,
  WorkspaceApprovalSettingsExecutor,
  ListWorkspacesHandler,
  BootstrapOrganizationHandler,
  BootstrapIfEmptyHandler,
  CreateSessionHandler,
  SignInThrottle,
  EndSessionHandler,
  CreateCustomerHandler,
  GetCustomerHandler,
  ListCustomersHandler,
  HoldForApprovalHandler,
  DecideApprovalHandler,
  GetApprovalHandler,
  ListAuditEventsHandler,
  CreateUserHandler,
  ListUsersHandler,
  { provide: CustomerVerificationRepository, useClass: TypeOrmCustomerVerificationRepository },
  { provide: VerificationReads, useClass: TypeOrmVerificationReads },
  SandboxVerificationProvider,
  { provide: SandboxChecks, useExisting: SandboxVerificationProvider },
  // The one place verification providers are bound: add a real provider's adapter (a
  // VerificationProvider, its webhook secret from configuration) to `inject` and to the list;
  // its webhooks then arrive at POST /v1/webhooks/verifications/{its name}.
  {
    provide: VerificationProviders,
    useFactory: (sandbox: SandboxVerificationProvider) => new VerificationProviders([sandbox]),
    inject: [SandboxVerificationProvider],
  },
  VerificationLifecycle,
  OverrideVerificationStatusHandler,
  ProcessVerificationWebhookHandler,
  CreateSandboxVerificationHandler,
  GetVerificationHandler,
  ListVerificationsHandler,
];

/** Organizations, workspaces, principals, API keys, sessions, approvals, audit, customers and their verifications. */
@Module({})
export class IdentityModule {
  /**
   * `customerWallets`: the module that provides and exports the CustomerWallets port (the
   * billing-wallet module); the application wires it, so identity never imports wallets.
   */
  static register(options: { customerWallets: Type | DynamicModule }): DynamicModule {
    return { module: IdentityModule, imports: [DiscoveryModule, options.customerWallets], providers: PROVIDERS };
  }
}

import { Module } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { ApiKeyLifecycleHandlers } from './application/api-keys';
import { DecideApprovalHandler, GetApprovalHandler, HoldForApprovalHandler } from './application/approvals/approval.handlers';
import { ListAuditEventsHandler } from './application/audit/list-audit-events.handler';
import { AuthenticateRequestHandler } from './application/authentication/authenticate-request.handler';
import { CredentialCache } from './application/authentication/credential-cache';
import { LastUsedRecorder } from './application/authentication/last-used-recorder';
import { WorkspaceDirectory } from './application/authentication/workspace-directory';
import { BootstrapIfEmptyHandler, BootstrapOrganizationHandler } from './application/bootstrap/bootstrap-organization.handler';
import { CreateCustomerHandler, GetCustomerHandler, ListCustomersHandler } from './application/customers/customer.handlers';
import { CreateSessionHandler, EndSessionHandler } from './application/sessions/session.handlers';
import { CreateUserHandler, ListUsersHandler } from './application/users/user.handlers';
import {
  CreateWorkspaceHandler,
  ListWorkspacesHandler,
  UpdateWorkspaceHandler,
  WorkspaceApprovalSettingsExecutor,
} from './application/workspaces/workspace.handlers';
import { ApiKeyRepository, OrganizationRepository, WorkspaceRepository } from './domain/repositories';
import { TypeOrmApiKeyRepository } from './infrastructure/typeorm-api-key.repository';
import { TypeOrmOrganizationRepository, TypeOrmWorkspaceRepository } from './infrastructure/typeorm-workspace.repository';

/** Organizations, workspaces, principals, API keys, sessions, approvals, audit, customers. */
@Module({
  imports: [DiscoveryModule],
  providers: [
    { provide: ApiKeyRepository, useClass: TypeOrmApiKeyRepository },
    { provide: WorkspaceRepository, useClass: TypeOrmWorkspaceRepository },
    { provide: OrganizationRepository, useClass: TypeOrmOrganizationRepository },
    CredentialCache,
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
  ],
})
export class IdentityModule {}

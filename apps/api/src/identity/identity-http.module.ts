import { Module } from '@nestjs/common';
import { IdentityModule } from '@app/identity';
import { ApiKeysController } from './api-keys.controller';
import { ApprovalsController } from './approvals.controller';
import { AuditEventsController } from './audit-events.controller';
import { CustomersController } from './customers.controller';
import { SessionsController } from './sessions.controller';
import { UsersController } from './users.controller';
import { WorkspacesController } from './workspaces.controller';

@Module({
  imports: [IdentityModule],
  controllers: [
    ApiKeysController,
    WorkspacesController,
    SessionsController,
    CustomersController,
    ApprovalsController,
    AuditEventsController,
    UsersController,
  ],
})
export class IdentityHttpModule {}

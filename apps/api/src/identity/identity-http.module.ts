import { Module } from '@nestjs/common';
import { BillingWalletModule } from '@app/billing-wallet';
import { IdentityModule } from '@app/identity';
import { ApiKeysController } from './api-keys.controller';
import { ApprovalsController } from './approvals.controller';
import { AuditEventsController } from './audit-events.controller';
import { CustomersController } from './customers.controller';
import { CustomerVerificationsController } from './customer-verifications.controller';
import { SessionsController } from './sessions.controller';
import { UsersController } from './users.controller';
import { WorkspacesController } from './workspaces.controller';

@Module({
  // Customers open their primary wallet through the port billing-wallet implements.
  imports: [IdentityModule.register({ customerWallets: BillingWalletModule })],
  controllers: [
    ApiKeysController,
    WorkspacesController,
    SessionsController,
    CustomersController,
    CustomerVerificationsController,
    ApprovalsController,
    AuditEventsController,
    UsersController,
  ],
})
export class IdentityHttpModule {}

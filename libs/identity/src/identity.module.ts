import { Module } from '@nestjs/common';

/** Organizations, workspaces, principals, API keys, approvals, customers. */
@Module({})
export class IdentityModule {}

import { JobTenant } from '@app/shared-kernel';
import type { TenantKey } from '../domain/repositories';

/** A tenant and, when known, its workspace's mode (the queue serves live work first). */
export type ModedTenant = TenantKey & { workspaceMode?: JobTenant['workspaceMode'] };

/** Only the tenant and its mode go into a job's data (an actor carries its principal too). */
export function modedTenantOf(tenant: ModedTenant): ModedTenant {
  return { organizationId: tenant.organizationId, workspaceId: tenant.workspaceId, workspaceMode: tenant.workspaceMode };
}

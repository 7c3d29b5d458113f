import { JobTenant } from '../jobs/fair-priority';
import type { Queryable } from './citus-distribution';

/** Whether a workspace is live or sandbox, for work that runs without a caller (jobs). */
export async function workspaceModeOf(
  db: Queryable,
  tenant: { organizationId: string; workspaceId: string },
): Promise<JobTenant['workspaceMode'] | undefined> {
  const rows = (await db.query('SELECT mode FROM workspaces WHERE organization_id = $1 AND id = $2', [
    tenant.organizationId,
    tenant.workspaceId,
  ])) as Array<{ mode: JobTenant['workspaceMode'] }>;
  return rows[0]?.mode;
}

let tenantsByEquality = false;

/**
 * On Citus the tenant is checked by plain equalities instead (TenantRouting turns it on at start):
 * Citus routes a statement to the organization's shard, and lets it lock rows, only when it names
 * the organization by equality; there each shard's planner finds the row by its primary key (all
 * three columns bound). On one PostgreSQL an equality on organization_id alone would let the planner
 * walk the primary key over the whole organization for the id.
 */
export function checkTenantsByEquality(on: boolean): void {
  tenantsByEquality = on;
}

/**
 * A row found by its globally unique id, its tenant checked on the row rather than searched for.
 * Every index of a tenant table leads with (organization_id, workspace_id); with statistics taken
 * while the table was small, each of them looks like one row for `organization_id = $1 AND
 * workspace_id = $2`, and the tie goes to whichever is cheaper by a hair, which then reads the
 * whole workspace. A row-wise IS NOT DISTINCT FROM (equality, since both columns are NOT NULL)
 * bounds no index, so the unique index on `id` is the only one the planner can walk.
 */
export function sameTenant(alias: string | null, organizationId: string, workspaceId: string): string {
  const column = (name: string) => (alias ? `${alias}.${name}` : name);
  if (tenantsByEquality)
    return `${column('organization_id')} = ${organizationId}::uuid AND ${column('workspace_id')} = ${workspaceId}::uuid`;
  return `(${column('organization_id')}, ${column('workspace_id')}) IS NOT DISTINCT FROM (${organizationId}::uuid, ${workspaceId}::uuid)`;
}

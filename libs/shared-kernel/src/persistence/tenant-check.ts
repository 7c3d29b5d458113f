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
  return `(${column('organization_id')}, ${column('workspace_id')}) IS NOT DISTINCT FROM (${organizationId}::uuid, ${workspaceId}::uuid)`;
}

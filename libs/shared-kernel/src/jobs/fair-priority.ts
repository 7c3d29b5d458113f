/** Whose work a job is: the queue orders jobs by it (JobQueue.send and sendFair). */
export interface JobTenant {
  organizationId: string;
  workspaceMode: 'live' | 'sandbox';
}

/** Jobs of one organization that share a round (round robin by organization, see fairPriority). */
export const FAIR_ROUND_SIZE = 10;

/** Below every live round: sandbox work runs when no live work is due. */
const SANDBOX_BASE = -1_000_000;

/**
 * pg-boss hands out due jobs by priority (highest first), then by age. An organization's job gets
 * the round of its place in its own backlog: the first FAIR_ROUND_SIZE jobs it has waiting run in
 * round 0, the next ones in round 1, and so on, so the queue serves every organization's round 0
 * before anyone's round 1 (round robin by organization) however early a large fan-out was sent.
 * For a single job, the backlog is the organization's jobs falling due at the same moment.
 */
export function fairPriority(mode: JobTenant['workspaceMode'], backlogPosition: number): number {
  const round = Math.min(Math.floor(backlogPosition / FAIR_ROUND_SIZE), -SANDBOX_BASE - 1);
  return (mode === 'sandbox' ? SANDBOX_BASE : 0) - round;
}

/** The tenant of a job's data; jobs queued before fair scheduling carry no mode and run as live work. */
export function jobTenantOf(tenant: { organizationId: string; workspaceMode?: JobTenant['workspaceMode'] }): JobTenant {
  return { organizationId: tenant.organizationId, workspaceMode: tenant.workspaceMode ?? 'live' };
}

import { TransactionHost } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { Actor, isUuid, preparedQuery } from '@app/shared-kernel';
import { catalogNotFound } from '../../domain/catalog-errors';
import { ReferrerType } from './list-version-referrers.query';

type Tx = TransactionHost<TransactionalAdapterTypeOrm>;

/** The plan of this workspace (not deleted), else 404. */
export async function assertPlan(txHost: Tx, actor: Actor, planId: string): Promise<void> {
  const [row] = isUuid(planId)
    ? await preparedQuery(
        txHost.tx,
        `SELECT 1 FROM plans WHERE organization_id = $1 AND workspace_id = $2 AND id = $3 AND deleted_at IS NULL`,
        [actor.organizationId, actor.workspaceId, planId],
      )
    : [];
  if (!row) throw catalogNotFound(undefined, 'plan');
}

/** Version n of a plan of this workspace: its id and whether it ever went live; 404 for the plan or the version. */
export async function versionOf(
  txHost: Tx,
  actor: Actor,
  planId: string,
  version: number,
): Promise<{ id: string; went_live: boolean }> {
  await assertPlan(txHost, actor, planId);
  const [row] = await preparedQuery<{ id: string; went_live: boolean }>(
    txHost.tx,
    `SELECT id, effective_from IS NOT NULL AS went_live FROM plan_versions
      WHERE organization_id = $1 AND workspace_id = $2 AND plan_id = $3 AND version = $4`,
    [actor.organizationId, actor.workspaceId, planId, version],
  );
  if (!row) throw catalogNotFound('version', 'version');
  return row;
}

/** Subscriptions on a version (any status), and changes that staged or produced it. */
export const REFERRER_SOURCES: Record<ReferrerType, string> = {
  subscription: `SELECT 'subscription' AS referrer_type, s.id AS referrer_id, s.created_at FROM subscriptions s
                  WHERE s.organization_id = $1 AND s.workspace_id = $2 AND s.plan_version_id = $3`,
  change: `SELECT 'change' AS referrer_type, c.id AS referrer_id, c.created_at FROM changes c
            WHERE c.organization_id = $1 AND c.workspace_id = $2 AND c.subject_kind = 'plan'
              AND (c.staged_version_id = $3 OR c.result_version_id = $3)`,
};

import { Transactional, TransactionHost } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { AuditLog, isUuid, preparedQuery } from '@app/shared-kernel';
import { catalogNotFound } from '../../domain/catalog-errors';
import { AnnotatePlanVersionCommand } from './annotate-plan-version.command';

@CommandHandler(AnnotatePlanVersionCommand)
export class AnnotatePlanVersionHandler implements ICommandHandler<AnnotatePlanVersionCommand> {
  constructor(
    private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>,
    private readonly audit: AuditLog,
  ) {}

  /** Release notes are display metadata of any row: "" clears, absent leaves; no version is created. */
  @Transactional()
  async execute({ actor, planId, version, notes }: AnnotatePlanVersionCommand): Promise<void> {
    const clear = (value: string | undefined) => (value === '' ? null : value);
    const rows = isUuid(planId)
      ? await preparedQuery<{ id: string }>(
          this.txHost.tx,
          `UPDATE plan_versions v SET release_name = CASE WHEN $5 THEN $6 ELSE v.release_name END,
                  release_note = CASE WHEN $7 THEN $8 ELSE v.release_note END
             FROM plans p
            WHERE v.organization_id = $1 AND v.workspace_id = $2 AND v.plan_id = $3 AND v.version = $4
              AND p.organization_id = v.organization_id AND p.workspace_id = v.workspace_id AND p.id = v.plan_id AND p.deleted_at IS NULL
            RETURNING v.id`,
          [
            actor.organizationId,
            actor.workspaceId,
            planId,
            version,
            notes.releaseName !== undefined,
            clear(notes.releaseName) ?? null,
            notes.releaseNote !== undefined,
            clear(notes.releaseNote) ?? null,
          ],
        )
      : [];
    if (rows.length === 0) {
      // An unknown (or another tenant's, or deleted) plan answers as every other plan route does.
      const [plan] = isUuid(planId)
        ? await preparedQuery(
            this.txHost.tx,
            `SELECT 1 FROM plans WHERE organization_id = $1 AND workspace_id = $2 AND id = $3 AND deleted_at IS NULL`,
            [actor.organizationId, actor.workspaceId, planId],
          )
        : [];
      throw plan ? catalogNotFound('version', 'version') : catalogNotFound(undefined, 'plan');
    }
    await this.audit.record(actor, {
      action: 'plan.version_annotated',
      resourceType: 'plan',
      resourceId: planId,
      data: { version },
    });
  }
}

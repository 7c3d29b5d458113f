import { TransactionHost } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { PlanMembershipView, PlanMemberships } from './plan-memberships';
import { GetPlanDraftQuery } from './get-plan-draft.query';
import { planVersionView, planRow } from './plan-reads';
import { PlanVersionReads } from './plan-version-reads';
import { CatalogErrors } from '../../domain/catalog-errors';

@QueryHandler(GetPlanDraftQuery)
export class GetPlanDraftHandler implements IQueryHandler<GetPlanDraftQuery> {
  constructor(
    private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>,
    private readonly versions: PlanVersionReads,
    private readonly memberships: PlanMemberships,
  ) {}

  async execute({ actor, planId }: GetPlanDraftQuery) {
    const plan = await planRow(this.txHost, actor, planId);
    if (!plan.draft_version_id) throw CatalogErrors.STAGED_DRAFT_NOT_FOUND.create('This plan has no staged draft.');
    const rows = await this.versions.draftWithBase(actor, plan.draft_version_id);
    const draft = rows.find((row) => row.id === plan.draft_version_id)!;
    const base = rows.find((row) => row.id === draft.base_version_id);
    const byVersion = await this.memberships.of(
      actor,
      rows.map((row) => row.id),
    );
    const after = byVersion.get(draft.id) ?? [];
    const before = base ? (byVersion.get(base.id) ?? []) : [];
    const same = (a: PlanMembershipView, b: PlanMembershipView) =>
      JSON.stringify({ ...a, product_version_id: null, product_version: null }) ===
      JSON.stringify({ ...b, product_version_id: null, product_version: null });
    return {
      ...planVersionView(draft, after),
      opened_at: draft.created_at,
      updated_at: draft.touched_at,
      base_version: base?.version ?? null,
      head_version: plan.head_version_id ? plan.version : null,
      summary: {
        fields_changed: (base?.price_cadence_unit ?? 'month') !== draft.price_cadence_unit ? ['price_cadence_unit'] : [],
        products_added: after.filter((m) => !before.some((b) => b.product_id === m.product_id)).map((m) => m.product_id),
        products_removed: before.filter((b) => !after.some((m) => m.product_id === b.product_id)).map((b) => b.product_id),
        memberships_changed: after
          .filter((m) => {
            const old = before.find((b) => b.product_id === m.product_id);
            return old !== undefined && !same(old, m);
          })
          .map((m) => m.product_id),
      },
    };
  }
}

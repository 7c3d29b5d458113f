import { TransactionHost } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { Injectable } from '@nestjs/common';
import { DomainError, preparedQuery } from '@app/shared-kernel';
import { CatalogErrors } from '../domain/catalog-errors';
import { termsViolations } from '../domain/membership-terms';
import { Plan, PlanContent, PlanResolution, ResolvedMembership } from '../domain/plan';
import { TenantKey } from '../domain/repositories';

export interface Pin {
  productId: string;
  productVersionId: string;
}

/**
 * Resolves a plan version's memberships at its go-live instant (model §4.3) and checks the plan
 * half of §2.7 step 8, in order: every member product has gone live (PUBLISH_DEPENDENCY_UNPUBLISHED),
 * every membership keeps §5 (PUBLISH_INVALID_ALLOWANCE), and no ACTIVE subscription that tracks
 * latest bills on another cadence (PUBLISH_CADENCE_MISMATCH).
 */
@Injectable()
export class PlanResolver {
  constructor(private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>) {}

  /** Pins are checked when the change is made (422 INVALID_PIN): inside the draft, and a version that went live. */
  async assertPins(tenant: TenantKey, content: PlanContent, pins: Pin[]): Promise<void> {
    for (const pin of pins) {
      if (!content.memberships.some((membership) => membership.productId === pin.productId)) {
        throw CatalogErrors.INVALID_PIN.create('A pin names a product that is not on the staged draft.', {
          param: 'pins',
          details: { product_id: pin.productId },
        });
      }
    }
    if (pins.length === 0) return;
    const live = await this.query<{ id: string; product_id: string }>(
      `SELECT id, product_id FROM product_versions WHERE organization_id = $1 AND workspace_id = $2 AND id = ANY($3::uuid[])
          AND effective_from IS NOT NULL`,
      [tenant.organizationId, tenant.workspaceId, pins.map((pin) => pin.productVersionId)],
    );
    for (const pin of pins) {
      if (!live.some((version) => version.id === pin.productVersionId && version.product_id === pin.productId)) {
        throw CatalogErrors.INVALID_PIN.create('A pin names a product version that never went live.', {
          param: 'pins',
          details: { product_id: pin.productId, product_version_id: pin.productVersionId },
        });
      }
    }
  }

  async resolve(tenant: TenantKey, plan: Plan, content: PlanContent, at: Date, pins: Pin[] = []): Promise<PlanResolution> {
    try {
      return { ok: true, memberships: await this.resolveOrThrow(tenant, plan, content, at, pins) };
    } catch (error) {
      if (error instanceof DomainError && error.code.startsWith('PUBLISH_')) return { ok: false, error };
      throw error;
    }
  }

  private async resolveOrThrow(
    tenant: TenantKey,
    plan: Plan,
    content: PlanContent,
    at: Date,
    pins: Pin[],
  ): Promise<ResolvedMembership[]> {
    const productIds = content.memberships.map((membership) => membership.productId);
    const liveAt = productIds.length
      ? await this.query<{ product_id: string; id: string }>(
          `SELECT product_id, id FROM product_versions
            WHERE organization_id = $1 AND workspace_id = $2 AND product_id = ANY($3::uuid[])
              AND effective_from IS NOT NULL AND effective_from <= $4 AND (effective_to IS NULL OR effective_to > $4)`,
          [tenant.organizationId, tenant.workspaceId, productIds, at],
        )
      : [];
    const headAt = new Map(liveAt.map((row) => [row.product_id, row.id]));
    const resolved: ResolvedMembership[] = [];
    for (const membership of content.memberships) {
      const pin = pins.find((candidate) => candidate.productId === membership.productId);
      const tracking = plan.trackingOf(membership.productId);
      const trackMode = pin ? 'pinned' : (tracking?.trackMode ?? 'latest');
      const productVersionId =
        pin?.productVersionId ??
        (trackMode === 'pinned' ? tracking?.pinnedProductVersionId : undefined) ??
        headAt.get(membership.productId);
      if (!productVersionId) {
        throw CatalogErrors.PUBLISH_DEPENDENCY_UNPUBLISHED.create('A product on the plan has never gone live.', {
          details: { product_id: membership.productId },
        });
      }
      resolved.push({ productId: membership.productId, productVersionId, trackMode });
    }
    for (const membership of content.memberships) {
      const [violation] = termsViolations(membership.terms, false);
      if (violation) {
        throw CatalogErrors.PUBLISH_INVALID_ALLOWANCE.create(`The terms of a membership break a rule: ${violation.message}`, {
          details: { product_id: membership.productId, rule: violation.param, code: violation.code },
        });
      }
    }
    const [mismatch] = await this.query<{ id: string; billing_cadence: string }>(
      `SELECT s.id, s.billing_cadence FROM subscriptions s
        WHERE s.organization_id = $1 AND s.workspace_id = $2 AND s.plan_id = $3 AND s.status = 'active' AND s.plan_track_mode = 'latest'
          AND s.billing_cadence <> $4
          AND NOT EXISTS (SELECT 1 FROM subscription_product_pins p WHERE p.organization_id = s.organization_id
                AND p.workspace_id = s.workspace_id AND p.subscription_id = s.id)
        LIMIT 1`,
      [tenant.organizationId, tenant.workspaceId, plan.id, content.priceCadenceUnit],
    );
    if (mismatch) {
      throw CatalogErrors.PUBLISH_CADENCE_MISMATCH.create(
        `An active subscription that tracks the latest version bills ${mismatch.billing_cadence}ly, not ${content.priceCadenceUnit}ly.`,
        {
          details: {
            subscription_id: mismatch.id,
            billing_cadence: mismatch.billing_cadence,
            price_cadence_unit: content.priceCadenceUnit,
          },
        },
      );
    }
    return resolved;
  }

  private query<Row>(text: string, values: unknown[]): Promise<Row[]> {
    return preparedQuery<Row>(this.txHost.tx, text, values);
  }
}

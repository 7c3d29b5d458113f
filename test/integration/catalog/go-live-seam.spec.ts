import { TransactionHost } from '@nestjs-cls/transactional';
import { PlanReleases } from '@app/catalog';
import { Clock } from '@app/shared-kernel';
import { PlanResolver } from '../../../libs/catalog/src/application/plan-resolution';
import { PlanRepository } from '../../../libs/catalog/src/domain/repositories';
import { CatalogClient } from '../../support/catalog-helpers';
import { SubscriptionClient } from '../../support/subscription-helpers';
import { createTenant } from '../../support/tenants';
import { createTestApp, TestApp } from '../../support/test-app';

jest.setTimeout(60_000);

/**
 * The go-live seam (model §4.8) for the origins without a route of their own here: a version that
 * a cascade or a bulk republish brings live is saved through the plan repository like a publish,
 * so latest-tracking subscribers move to it; a plan saved twice in one unit of work moves them once.
 */
describe('Automatic moves for every origin of a go-live', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  it.each(['cascade', 'manual'] as const)(
    'moves latest-tracking subscribers to a version republished with origin %s',
    async (origin) => {
      const tenant = await createTenant(t);
      const api = new SubscriptionClient(new CatalogClient(t, tenant.auth), tenant);
      await api.orgCost('seat', { amount: '10' });
      const product = await api.liveProduct('seat * 2');
      const planId = await api.plan([product.id]);
      await api.publishPlan(planId);
      const customer = await api.customer();
      const follower = await api.subscribe({
        customer_id: customer,
        plan_id: planId,
        plan_track_mode: 'latest',
        version_change_strategy: 'immediate',
      });
      const pinned = await api.subscribe({ customer_id: customer, plan_id: planId });
      const key = { organizationId: tenant.organization_id, workspaceId: tenant.liveWorkspaceId };

      await t.app.get(TransactionHost).withTransaction(async () => {
        const plans = t.app.get(PlanRepository, { strict: false });
        const plan = (await t.app.get(PlanReleases).load(key, planId))!;
        const head = plan.line.head!;
        const now = t.app.get(Clock).now();
        const resolution = await t.app.get(PlanResolver, { strict: false }).resolve(key, plan, plan.contentOf(head.id)!, now);
        if (!resolution.ok) throw resolution.error;
        plan.republish({
          now,
          origin,
          createdBy: { type: 'system', id: null, ...(origin === 'cascade' ? { via: 'cascade' as const } : {}) },
          cascadeSource:
            origin === 'cascade'
              ? { entityType: 'product', entityId: product.id, versionId: product.live_version.id, version: 1 }
              : null,
          resolution,
        });
        await plans.save(plan);
        // Saved again in the same unit of work: the go-live is reported twice, subscribers move once.
        await plans.save(plan);
      });

      const [migrationId] = await api.publishMigrations(planId);
      expect(await api.publishMigrations(planId)).toHaveLength(1);
      await api.runMigration(migrationId);
      expect(await api.migration(migrationId)).toMatchObject({
        trigger: 'publish',
        target_version: { version: 2 },
        counts: { total: 1, moved: 1 },
      });
      expect((await api.subscription(follower.id)).plan_version.version).toBe(2);
      expect((await api.subscription(pinned.id)).plan_version.version).toBe(1);
    },
  );
});

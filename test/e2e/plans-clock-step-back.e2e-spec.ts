import { ManualClock } from '@app/shared-kernel';
import { CatalogClient } from '../support/catalog-helpers';
import { createTenant } from '../support/tenants';
import { createTestApp, TestApp } from '../support/test-app';

/**
 * A plan is never updated or published before its creation (the CHECK constraints the plan list's
 * time filters rely on), even when the clock steps back between two writes, as an NTP correction
 * or a resynchronized database clock can make it.
 */
describe('plan times when the clock steps back', () => {
  const clock = new ManualClock(new Date('2027-09-01T12:00:00.000Z'));
  let t: TestApp;
  let api: CatalogClient;

  beforeAll(async () => {
    t = await createTestApp({ clock });
    api = new CatalogClient(t, (await createTenant(t)).auth);
  });
  afterAll(() => t.close());

  it('updates and publishes at the creation time at the earliest, and the time filters still find the plan', async () => {
    const created = await api.post('/v1/plans', { name: 'Stepped back' });
    expect(created.status).toBe(201);
    clock.advance(-60_000);
    expect((await api.patch(`/v1/plans/${created.body.id}`, { description: 'edited a minute "earlier"' })).status).toBe(200);
    const change = await api.post('/v1/changes', {
      operation: 'catalog.publish_version',
      subject_kind: 'plan',
      subject_id: created.body.id,
      staged_version_id: created.body.draft_version.id,
    });
    expect(change.status).toBe(201);
    expect(change.body.status).toBe('applied');

    const plan = (await api.get(`/v1/plans/${created.body.id}`)).body;
    expect(plan).toMatchObject({ status: 'active', description: 'edited a minute "earlier"' });
    expect(Date.parse(plan.updated_at)).toBeGreaterThanOrEqual(Date.parse(plan.created_at));
    expect(Date.parse(plan.published_at)).toBeGreaterThanOrEqual(Date.parse(plan.created_at));
    for (const query of [
      `updated_at.lte=${plan.updated_at}`,
      `published_at.eq=${plan.published_at}`,
      `updated_at.lt=2027-09-01T12:00:00.001Z`,
    ]) {
      const listed = await api.get(`/v1/plans?${query}`);
      expect({ query, ids: listed.body.data.map((row: { id: string }) => row.id) }).toEqual({ query, ids: [plan.id] });
    }
  });
});

import { DataSource } from 'typeorm';
import { CatalogClient } from '../../support/catalog-helpers';
import { createTenant } from '../../support/tenants';
import { createTestApp, TestApp } from '../../support/test-app';
import { createTestDatabase } from '../../support/test-database';

jest.setTimeout(90_000);

/**
 * A scheduled change fires from the job queue exactly once, whoever is running: it is scheduled
 * on one server, that server stops (a restart), and two others share the database when it falls
 * due. The release goes live at exactly its scheduled_for, once, and the change is applied once.
 */
describe('Scheduled releases across instances and a restart', () => {
  it('fires once, at scheduled_for, when two instances are up and the scheduling one is gone', async () => {
    const database = await createTestDatabase();
    const first = await createTestApp({ database });
    const api = new CatalogClient(first, (await createTenant(first)).auth);
    await api.orgCost('fee', { amount: '10' });
    const product = await api.liveProduct('fee * 2');
    expect((await api.patch(`/v1/products/${product.id}`, { price_expression: 'fee * 3' })).status).toBe(200);
    const draft = (await api.get(`/v1/products/${product.id}/draft`)).body;
    const scheduledFor = new Date(Date.now() + 4_000);
    const change = await api.post('/v1/changes', {
      operation: 'catalog.publish_version',
      subject_kind: 'product',
      subject_id: product.id,
      staged_version_id: draft.id,
      scheduled_for: scheduledFor.toISOString(),
    });
    expect(change.status).toBe(201);
    expect(change.body).toMatchObject({ status: 'pending', rank: 1 });
    await first.close();

    const instances: TestApp[] = [await createTestApp({ database }), await createTestApp({ database })];
    try {
      const reader = new CatalogClient(instances[1], api.auth);
      const deadline = Date.now() + 30_000;
      let status = 'pending';
      while (status === 'pending' && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 250));
        status = (await reader.get(`/v1/changes/${change.body.id}`)).body.status;
      }
      const applied = (await reader.get(`/v1/changes/${change.body.id}`)).body;
      expect(applied).toMatchObject({ status: 'applied', result: { id: draft.id, version: 2 } });
      expect(new Date(applied.applied_at).toISOString()).toBe(scheduledFor.toISOString());
      const versions = (await reader.get(`/v1/products/${product.id}/versions`)).body.data;
      expect(versions.map((version: any) => [version.version, version.status, version.origin])).toEqual([
        [2, 'published', 'scheduled_release'],
        [1, 'archived', 'manual'],
      ]);
      expect(new Date(versions[0].effective_from).toISOString()).toBe(scheduledFor.toISOString());
      expect(new Date(versions[1].effective_to).toISOString()).toBe(scheduledFor.toISOString());
      expect((await reader.get(`/v1/products/${product.id}`)).body).toMatchObject({ unit_price: '30', version: 2 });
      const published = await instances[0].app
        .get(DataSource)
        .query(`SELECT count(*)::int AS n FROM product_versions WHERE product_id = $1 AND status = 'published'`, [product.id]);
      expect(published[0].n).toBe(1);
    } finally {
      for (const instance of instances) await instance.close();
      await database.drop();
    }
  });
});

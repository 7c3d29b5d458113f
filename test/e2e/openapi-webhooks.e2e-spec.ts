import { EVENT_TYPES } from '@app/shared-kernel';
import { CatalogClient } from '../support/catalog-helpers';
import { componentOf, objectMisfit, webhookPayloadOf } from '../support/event-schemas';
import { SubscriptionClient } from '../support/subscription-helpers';
import { createTenant } from '../support/tenants';
import { createTestApp, TestApp } from '../support/test-app';

jest.setTimeout(60_000);

/**
 * The OpenAPI document's `webhooks` (OpenAPI 3.1): one entry per event type of the catalog, its
 * body the event with `data.object` the resource's own schema, every reference resolving, and
 * what the API really writes fitting it.
 */
describe('OpenAPI webhooks: every event type with its payload schema', () => {
  let t: TestApp;
  let document: any;

  beforeAll(async () => {
    t = await createTestApp();
    document = (await t.http.get('/openapi.json').expect(200)).body;
  });
  afterAll(() => t.close());

  const payloadOf = (type: string) => webhookPayloadOf(document, type);
  const resolve = (ref: string) => componentOf(document, ref);

  /** Every `$ref` reachable from a schema, following the components it names. */
  function references(schema: unknown, seen = new Set<string>()): Set<string> {
    if (Array.isArray(schema)) for (const item of schema) references(item, seen);
    else if (schema && typeof schema === 'object') {
      for (const [key, value] of Object.entries(schema)) {
        if (key === '$ref' && typeof value === 'string') {
          if (seen.has(value)) continue;
          seen.add(value);
          references(resolve(value), seen);
        } else references(value, seen);
      }
    }
    return seen;
  }

  it('is an OpenAPI 3.1 document with one webhook per event type of the catalog, and none other', () => {
    expect(document.openapi).toMatch(/^3\.1\./);
    expect(Object.keys(document.webhooks).sort()).toEqual([...EVENT_TYPES].sort());
    const operationIds = Object.values(document.webhooks).map((item: any) => item.post.operationId);
    expect(new Set(operationIds).size).toBe(EVENT_TYPES.length);
  });

  it('sends each type as the event envelope with its type fixed and data.object the resource’s schema; every reference resolves', () => {
    for (const type of EVENT_TYPES) {
      const [envelope, narrowed] = payloadOf(type).allOf;
      expect({ type, envelope: envelope.$ref }).toEqual({ type, envelope: '#/components/schemas/EventDto' });
      expect({ type, fixed: narrowed.properties.type.enum }).toEqual({ type, fixed: [type] });
      const object = narrowed.properties.data.properties.object.$ref;
      expect({ type, object: resolve(object)?.type }).toEqual({ type, object: 'object' });
      const unresolved = [...references(payloadOf(type))].filter((ref) => resolve(ref) === undefined);
      expect({ type, unresolved }).toEqual({ type, unresolved: [] });
      const headers = document.webhooks[type].post.parameters.map((parameter: any) => [
        parameter.in,
        parameter.name,
        parameter.required,
      ]);
      expect(headers).toEqual([
        ['header', 'webhook-id', true],
        ['header', 'webhook-timestamp', true],
        ['header', 'webhook-signature', true],
      ]);
    }
  });

  it('describes the events the API writes: each data.object has its schema’s required fields and no undeclared one', async () => {
    const tenant = await createTenant(t);
    const api = new SubscriptionClient(new CatalogClient(t, tenant.auth), tenant);
    await api.orgCost('fee', { amount: '1.50' });
    const product = await api.liveProduct('fee * 2');
    const planId = await api.plan([product.id]);
    await api.publishPlan(planId);
    const subscription = await api.subscribe({ customer_id: await api.customer(), plan_id: planId });
    expect((await api.post(`/v1/subscriptions/${subscription.id}/cancel`)).status).toBe(200);

    const events = (await t.http.get('/v1/events?limit=200').set('Authorization', tenant.auth).expect(200)).body.data;
    const types = new Set<string>(events.map((event: any) => event.type));
    expect([...types].sort()).toEqual(
      expect.arrayContaining([
        'change.applied',
        'cost.created',
        'customer.created',
        'plan.version.published',
        'product.version.published',
        'subscription.canceled',
        'subscription.created',
        'wallet.created',
      ]),
    );
    for (const event of events) {
      expect({ type: event.type, misfit: objectMisfit(document, event) }).toEqual({
        type: event.type,
        misfit: { undeclared: [], missing: [] },
      });
    }
  });
});

import { randomUUID } from 'node:crypto';
import { TransactionHost } from '@nestjs-cls/transactional';
import { DELIVER_JOB, MAX_IN_FLIGHT_PER_ENDPOINT, WebhookDeliveries, WebhookDispatcher } from '@app/webhooks';
import { Webhook } from 'standardwebhooks';
import { DataSource } from 'typeorm';
import { eventually, expectError, expectFieldError } from '../support/auth-helpers';
import { createKey, createTenant, idem, TestTenant } from '../support/tenants';
import { createTestApp, TestApp } from '../support/test-app';
import { enqueue, sampleEvent, WebhookReceiver } from '../support/webhook-receiver';

jest.setTimeout(120_000);

/**
 * Webhook endpoints and deliveries (api-contract.md §4) against a real local receiver that
 * verifies every signature with the `standardwebhooks` library. Most deliveries are queued by calling
 * WebhookDeliveries.enqueueForEvent inside a transaction with a sample event; the last block drives
 * real writes over HTTP, whose events queue their deliveries themselves (WebhookEventHook).
 */
describe('Webhook endpoints and signed deliveries', () => {
  let t: TestApp;
  let a: TestTenant;
  let b: TestTenant;
  let receiver: WebhookReceiver;
  let db: DataSource;

  beforeAll(async () => {
    receiver = await new WebhookReceiver().start();
    t = await createTestApp();
    db = t.app.get(DataSource);
    a = await createTenant(t);
    b = await createTenant(t);
  });
  afterAll(async () => {
    await receiver.close();
    await t.close();
  });

  async function createEndpoint(tenant: TestTenant, body: Record<string, unknown>, auth = tenant.auth) {
    const response = await t.http
      .post('/v1/webhook_endpoints')
      .set('Authorization', auth)
      .set('Idempotency-Key', idem())
      .send(body);
    expect(response.status).toBe(201);
    return response.body as { id: string; secret: string; [field: string]: unknown };
  }

  async function deliveries(tenant: TestTenant, endpointId: string, query = '') {
    const response = await t.http
      .get(`/v1/webhook_endpoints/${endpointId}/deliveries${query}`)
      .set('Authorization', tenant.auth)
      .expect(200);
    return response.body.data as Array<Record<string, any>>;
  }

  /** Makes the delivery's next attempt due now and runs its job, as pg-boss would at next_attempt_at. */
  async function runNextAttempt(tenant: TestTenant, deliveryId: string): Promise<void> {
    const [before] = await db.query(`SELECT attempt FROM webhook_deliveries WHERE id = $1`, [deliveryId]);
    await db.query(`UPDATE webhook_deliveries SET next_attempt_at = $2 WHERE id = $1`, [deliveryId, new Date(Date.now() - 1000)]);
    await t.app.get(WebhookDispatcher).dispatch({ organizationId: tenant.organization_id, workspaceMode: 'live', deliveryId });
    await eventually(async () => {
      const [row] = await db.query(`SELECT attempt FROM webhook_deliveries WHERE id = $1`, [deliveryId]);
      return row.attempt > before.attempt ? true : undefined;
    }, 15_000);
  }

  it('creates an endpoint with a whsec_ secret shown once and stored sealed; reads never show it', async () => {
    const created = await t.http
      .post('/v1/webhook_endpoints')
      .set('Authorization', a.auth)
      .set('Idempotency-Key', idem())
      .send({ url: receiver.url('/ok-create'), enabled_events: ['customer.*'], description: 'CRM', metadata: { team: 'crm' } })
      .expect(201);
    expect(created.headers.location).toBe(`/v1/webhook_endpoints/${created.body.id}`);
    expect(created.body).toEqual(
      expect.objectContaining({
        object: 'webhook_endpoint',
        url: receiver.url('/ok-create'),
        enabled_events: ['customer.*'],
        description: 'CRM',
        metadata: { team: 'crm' },
        status: 'enabled',
        disabled_reason: null,
        workspace_id: a.liveWorkspaceId,
      }),
    );
    const secret: string = created.body.secret;
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);
    expect(Buffer.from(secret.slice('whsec_'.length), 'base64').length).toBeGreaterThanOrEqual(24);

    const got = await t.http.get(`/v1/webhook_endpoints/${created.body.id}`).set('Authorization', a.auth).expect(200);
    expect(got.body.secret).toBeUndefined();
    expect(got.body).toEqual(expect.objectContaining({ id: created.body.id, url: receiver.url('/ok-create') }));
    const listed = await t.http.get('/v1/webhook_endpoints').set('Authorization', a.auth).expect(200);
    expect(listed.body.data.map((row: { id: string }) => row.id)).toContain(created.body.id);
    expect(JSON.stringify(listed.body)).not.toContain(secret);

    const [stored] = await db.query(`SELECT to_jsonb(e)::text AS row FROM webhook_endpoints e WHERE id = $1`, [created.body.id]);
    expect(stored.row).not.toContain(secret.slice('whsec_'.length));
    const [replay] = await db.query(`SELECT count(*)::int AS n FROM idempotency_records WHERE response_body LIKE $1`, [
      `%${secret}%`,
    ]);
    expect(replay.n).toBe(0);
  });

  it('delivers an event to each matching endpoint once, signed so that standardwebhooks verifies it', async () => {
    const customers = await createEndpoint(a, { url: receiver.url('/ok-customers'), enabled_events: ['customer.*'] });
    const exact = await createEndpoint(a, { url: receiver.url('/ok-exact'), enabled_events: ['customer.created'] });
    const everything = await createEndpoint(a, { url: receiver.url('/ok-all'), enabled_events: ['*'] });
    const wallets = await createEndpoint(a, { url: receiver.url('/ok-wallets'), enabled_events: ['wallet.*'] });
    const otherTenant = await createEndpoint(b, { url: receiver.url('/ok-tenant-b'), enabled_events: ['*'] });
    const event = sampleEvent(a.liveWorkspaceId, 'customer.created');

    // Three of A's endpoints select the type (the earlier test's customer.* one too): not wallet.*, not B's.
    expect(await enqueue(t, event, a.organization_id)).toBe(4);
    for (const path of ['/ok-customers', '/ok-exact', '/ok-all']) {
      await eventually(async () => (receiver.on(path).length > 0 ? true : undefined), 10_000);
    }
    for (const [path, secret] of [
      ['/ok-customers', customers.secret],
      ['/ok-exact', exact.secret],
      ['/ok-all', everything.secret],
    ]) {
      const [request] = receiver.on(path);
      expect(request.headers['webhook-id']).toBe(event.id);
      expect(request.headers['content-type']).toBe('application/json');
      expect(Number(request.headers['webhook-timestamp'])).toBeGreaterThan(Date.now() / 1000 - 60);
      expect(new Webhook(secret).verify(request.body, request.headers)).toEqual(event);
      // Another endpoint's secret does not verify it.
      expect(() => new Webhook(wallets.secret).verify(request.body, request.headers)).toThrow();
    }
    expect(receiver.on('/ok-wallets')).toEqual([]);
    expect(receiver.on('/ok-tenant-b')).toEqual([]);

    const [delivery] = await eventually(async () => {
      const rows = await deliveries(a, everything.id);
      return rows[0]?.status === 'succeeded' ? rows : undefined;
    }, 10_000);
    expect(delivery).toEqual(
      expect.objectContaining({
        object: 'webhook_delivery',
        event_id: event.id,
        event_type: 'customer.created',
        attempt: 1,
        status: 'succeeded',
        response_status: 200,
        error: null,
        next_attempt_at: null,
        duration_ms: expect.any(Number),
      }),
    );
    expect(await deliveries(b, otherTenant.id)).toEqual([]);
    const log = await db.query(
      `SELECT attempt, succeeded, response_status FROM webhook_delivery_attempts WHERE delivery_id = $1`,
      [delivery.id],
    );
    expect(log).toEqual([{ attempt: 1, succeeded: true, response_status: 200 }]);
    // Filters of the deliveries list.
    expect((await deliveries(a, everything.id, `?event_id=${event.id}&status=succeeded`)).map((row) => row.id)).toEqual([
      delivery.id,
    ]);
    expect(await deliveries(a, everything.id, '?status=failed')).toEqual([]);
  });

  it('writes nothing when the transaction that wrote the event rolls back', async () => {
    const endpoint = await createEndpoint(a, { url: receiver.url('/ok-rollback'), enabled_events: ['plan.created'] });
    const event = sampleEvent(a.liveWorkspaceId, 'plan.created');
    const deliveriesService = t.app.get(WebhookDeliveries);
    await expect(
      t.app.get(TransactionHost).withTransaction(async () => {
        await deliveriesService.enqueueForEvent(event, { organizationId: a.organization_id });
        throw new Error('the change failed');
      }),
    ).rejects.toThrow('the change failed');
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(receiver.on('/ok-rollback')).toEqual([]);
    expect(await deliveries(a, endpoint.id)).toEqual([]);
    const jobs = await db.query(
      `SELECT count(*)::int AS n FROM pgboss.job WHERE name = $1 AND data->>'deliveryId' IS NOT NULL
      AND data->>'organizationId' = $2 AND state = 'created'`,
      [DELIVER_JOB, a.organization_id],
    );
    expect(jobs[0].n).toBe(0);
  });

  it('retries a failing endpoint on the schedule (5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h), logging each attempt, then fails', async () => {
    const endpoint = await createEndpoint(a, { url: receiver.url('/fail-retries'), enabled_events: ['cost.created'] });
    const event = sampleEvent(a.liveWorkspaceId, 'cost.created');
    await enqueue(t, event, a.organization_id);
    const first = await eventually(async () => {
      const [row] = await deliveries(a, endpoint.id);
      return row?.attempt === 1 ? row : undefined;
    }, 10_000);
    expect(first).toEqual(
      expect.objectContaining({ status: 'pending', response_status: 500, error: 'The endpoint answered 500.' }),
    );
    const [{ updated_at: failedAt }] = await db.query(`SELECT updated_at FROM webhook_deliveries WHERE id = $1`, [first.id]);
    expect(Date.parse(first.next_attempt_at) - failedAt.getTime()).toBe(5_000);

    // The second attempt comes by itself from the job queue, about 5 s later.
    const second = await eventually(async () => {
      const [row] = await deliveries(a, endpoint.id);
      return row?.attempt === 2 ? row : undefined;
    }, 15_000);
    expect(receiver.on('/fail-retries')).toHaveLength(2);
    const gap = receiver.on('/fail-retries')[1].at - receiver.on('/fail-retries')[0].at;
    expect(gap).toBeGreaterThanOrEqual(4_500);
    expect(second.status).toBe('pending');

    const expected = [300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000];
    const [{ updated_at: secondAt }] = await db.query(`SELECT updated_at FROM webhook_deliveries WHERE id = $1`, [first.id]);
    expect(Date.parse(second.next_attempt_at) - secondAt.getTime()).toBe(expected[0]);
    for (let attempt = 3; attempt <= 8; attempt += 1) {
      await runNextAttempt(a, first.id);
      const [row] = await db.query(`SELECT attempt, status, next_attempt_at, updated_at FROM webhook_deliveries WHERE id = $1`, [
        first.id,
      ]);
      expect(row.attempt).toBe(attempt);
      if (attempt < 8) {
        expect({ attempt, delay: row.next_attempt_at.getTime() - row.updated_at.getTime() }).toEqual({
          attempt,
          delay: expected[attempt - 2],
        });
        expect(row.status).toBe('pending');
      } else {
        expect(row).toEqual(expect.objectContaining({ status: 'failed', next_attempt_at: null }));
      }
    }
    expect(receiver.on('/fail-retries')).toHaveLength(8);
    // Every attempt carried the same webhook-id, so a receiver deduplicates retries.
    expect(new Set(receiver.on('/fail-retries').map((request) => request.headers['webhook-id']))).toEqual(new Set([event.id]));
    const log = await db.query(
      `SELECT attempt, succeeded, response_status FROM webhook_delivery_attempts WHERE delivery_id = $1 ORDER BY attempt`,
      [first.id],
    );
    expect(log).toEqual([1, 2, 3, 4, 5, 6, 7, 8].map((attempt) => ({ attempt, succeeded: false, response_status: 500 })));
    const [final] = await deliveries(a, endpoint.id, '?status=failed');
    expect(final).toEqual(expect.objectContaining({ id: first.id, attempt: 8, status: 'failed', next_attempt_at: null }));
  });

  it('does not follow redirects: a 302 is a failed attempt', async () => {
    const endpoint = await createEndpoint(a, { url: receiver.url('/redirect-me'), enabled_events: ['cost.updated'] });
    await enqueue(t, sampleEvent(a.liveWorkspaceId, 'cost.updated'), a.organization_id);
    const [row] = await eventually(async () => {
      const rows = await deliveries(a, endpoint.id);
      return rows[0]?.attempt === 1 ? rows : undefined;
    }, 10_000);
    expect(row).toEqual(expect.objectContaining({ status: 'pending', response_status: 302 }));
    expect(receiver.on('/ok-redirected')).toEqual([]);
  });

  it('times out after 10 s, and a hanging endpoint never delays another endpoint’s deliveries', async () => {
    const hanging = await createEndpoint(a, { url: receiver.url('/hang'), enabled_events: ['product.created'] });
    const healthy = await createEndpoint(a, { url: receiver.url('/ok-beside-hang'), enabled_events: ['product.created'] });
    const started = Date.now();
    const events = Array.from({ length: 8 }, () => sampleEvent(a.liveWorkspaceId, 'product.created'));
    for (const event of events) await enqueue(t, event, a.organization_id);
    // All eight reach the healthy endpoint while the hanging one holds its attempts open.
    await eventually(async () => (receiver.on('/ok-beside-hang').length === 8 ? true : undefined), 8_000);
    expect(Date.now() - started).toBeLessThan(8_000);
    expect(receiver.on('/hang').length).toBeGreaterThan(0);
    const done = await eventually(async () => {
      const rows = await deliveries(a, healthy.id);
      return rows.length === 8 && rows.every((row) => row.status === 'succeeded') ? rows : undefined;
    }, 5_000);
    expect(done).toHaveLength(8);

    const timedOut = await eventually(async () => {
      const rows = await deliveries(a, hanging.id);
      const failed = rows.filter((row) => row.attempt >= 1);
      return failed.length > 0 ? failed[0] : undefined;
    }, 20_000);
    expect(timedOut).toEqual(
      expect.objectContaining({ status: 'pending', response_status: null, error: 'No response within 10 s.' }),
    );
    expect(timedOut.duration_ms).toBeGreaterThanOrEqual(10_000);
    expect(timedOut.duration_ms).toBeLessThan(12_000);
    await t.http
      .patch(`/v1/webhook_endpoints/${hanging.id}`)
      .set('Authorization', a.auth)
      .send({ status: 'disabled' })
      .expect(200);
  });

  it('a hanging endpoint’s waiting deliveries come back about when a slot frees, not every second', async () => {
    const hanging = await createEndpoint(a, { url: receiver.url('/hang-waiting'), enabled_events: ['product.updated'] });
    const events = Array.from({ length: MAX_IN_FLIGHT_PER_ENDPOINT + 6 }, () =>
      sampleEvent(a.liveWorkspaceId, 'product.updated'),
    );
    for (const event of events) await enqueue(t, event, a.organization_id);
    const ids: string[] = (await db.query(`SELECT id FROM webhook_deliveries WHERE endpoint_id = $1`, [hanging.id])).map(
      (row: { id: string }) => row.id,
    );
    expect(ids).toHaveLength(events.length);
    // Less than the 10 s timeout: the first attempts still hold the endpoint's slots.
    await new Promise((resolve) => setTimeout(resolve, 9_000));
    // Every job of these deliveries since: the first ones, then one per time a waiting delivery found the
    // endpoint's slots taken. Coming back every second (and a poll later), six made about 40 in 9 s.
    const [{ jobs }] = await db.query(
      `SELECT count(*)::int AS jobs FROM pgboss.job WHERE name = $1 AND data->>'deliveryId' = ANY ($2)`,
      [DELIVER_JOB, ids],
    );
    const waiting = events.length - MAX_IN_FLIGHT_PER_ENDPOINT;
    expect(receiver.on('/hang-waiting')).toHaveLength(MAX_IN_FLIGHT_PER_ENDPOINT);
    expect(jobs - events.length).toBeGreaterThanOrEqual(waiting);
    expect(jobs - events.length).toBeLessThan(waiting * 5);
    await t.http
      .patch(`/v1/webhook_endpoints/${hanging.id}`)
      .set('Authorization', a.auth)
      .send({ status: 'disabled' })
      .expect(200);
  });

  it('signs with both secrets for 24 hours after a rotation, then with the new one only', async () => {
    const endpoint = await createEndpoint(a, { url: receiver.url('/ok-rotation'), enabled_events: ['change.applied'] });
    const rotated = await t.http
      .post(`/v1/webhook_endpoints/${endpoint.id}/rotate_secret`)
      .set('Authorization', a.auth)
      .set('Idempotency-Key', idem())
      .expect(200);
    const newSecret: string = rotated.body.secret;
    expect(newSecret).toMatch(/^whsec_/);
    expect(newSecret).not.toBe(endpoint.secret);
    const overlapEnds = Date.parse(rotated.body.previous_secret_expires_at);
    expect(overlapEnds - Date.parse(rotated.body.updated_at)).toBe(24 * 3_600_000);

    const event = sampleEvent(a.liveWorkspaceId, 'change.applied');
    await enqueue(t, event, a.organization_id);
    const [request] = await eventually(
      async () => (receiver.on('/ok-rotation').length === 1 ? receiver.on('/ok-rotation') : undefined),
      10_000,
    );
    const signatures = request.headers['webhook-signature'].split(' ');
    expect(signatures).toHaveLength(2);
    for (const signature of signatures) expect(signature).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
    // Each secret verifies it: receivers may switch at any time in the 24 hours.
    expect(new Webhook(newSecret).verify(request.body, request.headers)).toEqual(event);
    expect(new Webhook(endpoint.secret).verify(request.body, request.headers)).toEqual(event);
    // Each signature is exactly one secret's.
    const timestamp = new Date(Number(request.headers['webhook-timestamp']) * 1000);
    expect(signatures.sort()).toEqual(
      [
        new Webhook(newSecret).sign(event.id, timestamp, request.body),
        new Webhook(endpoint.secret).sign(event.id, timestamp, request.body),
      ].sort(),
    );

    // Once the 24 hours have passed, the old secret signs no more.
    await db.query(`UPDATE webhook_endpoints SET previous_secret_expires_at = $2 WHERE id = $1`, [
      endpoint.id,
      new Date(Date.now() - 1000),
    ]);
    const later = sampleEvent(a.liveWorkspaceId, 'change.applied');
    await enqueue(t, later, a.organization_id);
    const second = await eventually(async () => receiver.on('/ok-rotation')[1], 10_000);
    expect(second.headers['webhook-signature'].split(' ')).toHaveLength(1);
    expect(new Webhook(newSecret).verify(second.body, second.headers)).toEqual(later);
    expect(() => new Webhook(endpoint.secret).verify(second.body, second.headers)).toThrow();
    const got = await t.http.get(`/v1/webhook_endpoints/${endpoint.id}`).set('Authorization', a.auth).expect(200);
    expect(got.body.previous_secret_expires_at).toBeNull();
  });

  it('disables an endpoint whose deliveries have all failed for 3 days, and writes the webhook_endpoint.disabled event', async () => {
    const endpoint = await createEndpoint(a, { url: receiver.url('/fail-streak'), enabled_events: ['plan.deleted'] });
    // A success clears the streak: a failure right after starts a new one.
    await enqueue(t, sampleEvent(a.liveWorkspaceId, 'plan.deleted'), a.organization_id);
    await eventually(async () => {
      const [row] = await db.query(`SELECT failing_since FROM webhook_endpoints WHERE id = $1`, [endpoint.id]);
      return row.failing_since ?? undefined;
    }, 10_000);
    let [state] = await t.http
      .get(`/v1/webhook_endpoints/${endpoint.id}`)
      .set('Authorization', a.auth)
      .then((r) => [r.body]);
    expect(state.status).toBe('enabled');

    await db.query(`UPDATE webhook_endpoints SET failing_since = $2 WHERE id = $1`, [
      endpoint.id,
      new Date(Date.now() - 3 * 24 * 3_600_000 - 60_000),
    ]);
    const [pending] = await deliveries(a, endpoint.id);
    await runNextAttempt(a, pending.id);
    state = (await t.http.get(`/v1/webhook_endpoints/${endpoint.id}`).set('Authorization', a.auth).expect(200)).body;
    expect(state).toEqual(
      expect.objectContaining({ status: 'disabled', disabled_reason: 'failing', disabled_at: expect.any(String) }),
    );
    // A real event, whose object is the endpoint as its GET answers it.
    const written = await t.http.get('/v1/events?type=webhook_endpoint.disabled').set('Authorization', a.auth).expect(200);
    expect(written.body.data.map((event: { data: { object: unknown } }) => event.data.object)).toEqual([state]);
    // A disabled endpoint is not selected for new events; its pending delivery fails without a request.
    const unselected = sampleEvent(a.liveWorkspaceId, 'plan.deleted');
    await enqueue(t, unselected, a.organization_id);
    expect(await deliveries(a, endpoint.id, `?event_id=${unselected.id}`)).toEqual([]);
    const requests = receiver.on('/fail-streak').length;
    await runNextAttempt(a, pending.id);
    const [after] = await deliveries(a, endpoint.id);
    expect(after).toEqual(expect.objectContaining({ status: 'failed', error: 'The endpoint is disabled.' }));
    expect(receiver.on('/fail-streak')).toHaveLength(requests);
    // Enabled again, it receives again, with a fresh streak.
    const enabled = await t.http
      .patch(`/v1/webhook_endpoints/${endpoint.id}`)
      .set('Authorization', a.auth)
      .send({ status: 'enabled' });
    expect(enabled.body).toEqual(expect.objectContaining({ status: 'enabled', disabled_reason: null, disabled_at: null }));
    const [streak] = await db.query(`SELECT failing_since FROM webhook_endpoints WHERE id = $1`, [endpoint.id]);
    expect(streak.failing_since).toBeNull();
  });

  it('redelivers an event to one endpoint of its workspace on request, and refuses another tenant’s endpoint', async () => {
    const endpoint = await createEndpoint(a, { url: receiver.url('/ok-redeliver'), enabled_events: ['wallet.created'] });
    const foreign = await createEndpoint(b, { url: receiver.url('/ok-redeliver-b'), enabled_events: ['*'] });
    const event = sampleEvent(a.liveWorkspaceId, 'subscription.created');
    const service = t.app.get(WebhookDeliveries);
    const host = t.app.get(TransactionHost);
    // Redelivery ignores the endpoint's filters: the integrator asked for this endpoint.
    const id = await host.withTransaction(() => service.redeliver(event, { organizationId: a.organization_id }, endpoint.id));
    await eventually(async () => (receiver.on('/ok-redeliver').length === 1 ? true : undefined), 10_000);
    expect(
      new Webhook(endpoint.secret).verify(receiver.on('/ok-redeliver')[0].body, receiver.on('/ok-redeliver')[0].headers),
    ).toEqual(event);
    expect((await deliveries(a, endpoint.id)).map((row) => row.id)).toEqual([id]);
    for (const endpointId of [foreign.id, randomUUID(), 'not-a-uuid']) {
      await expect(
        host.withTransaction(() => service.redeliver(event, { organizationId: a.organization_id }, endpointId)),
      ).rejects.toMatchObject({ code: 'WEBHOOK_ENDPOINT_NOT_FOUND' });
    }
  });

  it('sends again an attempt whose server died mid-flight (its lease expired), with the same webhook-id', async () => {
    const endpoint = await createEndpoint(a, { url: receiver.url('/ok-sweep'), enabled_events: ['cascade_run.completed'] });
    const event = sampleEvent(a.liveWorkspaceId, 'cascade_run.completed');
    await enqueue(t, event, a.organization_id);
    const [delivery] = await eventually(async () => {
      const rows = await deliveries(a, endpoint.id);
      return rows[0]?.status === 'succeeded' ? rows : undefined;
    }, 10_000);
    // As a server killed during attempt 2 leaves it: pending, claimed, the claim run out, nothing recorded.
    await db.query(`UPDATE webhook_deliveries SET status = 'pending', next_attempt_at = $2, lease_until = $3 WHERE id = $1`, [
      delivery.id,
      new Date(Date.now() - 3_600_000),
      new Date(Date.now() - 1000),
    ]);
    expect(await t.app.get(WebhookDispatcher).sweep()).toBeGreaterThanOrEqual(1);
    await eventually(async () => (receiver.on('/ok-sweep').length === 2 ? true : undefined), 10_000);
    const [again] = await eventually(async () => {
      const rows = await deliveries(a, endpoint.id);
      return rows[0]?.status === 'succeeded' && rows[0].attempt === 2 ? rows : undefined;
    }, 10_000);
    expect(again.id).toBe(delivery.id);
    expect(receiver.on('/ok-sweep').map((request) => request.headers['webhook-id'])).toEqual([event.id, event.id]);
  });

  it('purges what is older than the 30 days events are kept, except deliveries still pending', async () => {
    const done = await createEndpoint(a, { url: receiver.url('/ok-purge'), enabled_events: ['plan.version.archived'] });
    const failing = await createEndpoint(a, { url: receiver.url('/fail-purge'), enabled_events: ['plan.version.archived'] });
    const event = sampleEvent(a.liveWorkspaceId, 'plan.version.archived');
    await enqueue(t, event, a.organization_id);
    await eventually(async () => {
      const [ok] = await deliveries(a, done.id);
      const [pending] = await deliveries(a, failing.id);
      return ok?.status === 'succeeded' && pending?.attempt === 1 ? true : undefined;
    }, 10_000);
    const old = new Date(Date.now() - 31 * 24 * 3_600_000);
    await db.query(`UPDATE webhook_event_payloads SET created_at = $2 WHERE event_id = $1`, [event.id, old]);
    await t.app.get(WebhookDispatcher).purge();
    // A delivery still being retried keeps its event.
    expect(await deliveries(a, done.id)).toHaveLength(1);
    await db.query(`UPDATE webhook_deliveries SET status = 'failed', next_attempt_at = NULL WHERE event_id = $1`, [event.id]);
    await t.app.get(WebhookDispatcher).purge();
    expect(await deliveries(a, done.id)).toEqual([]);
    expect(await deliveries(a, failing.id)).toEqual([]);
    const left = await db.query(`SELECT count(*)::int AS n FROM webhook_event_payloads WHERE event_id = $1`, [event.id]);
    expect(left[0].n).toBe(0);
  });

  it('updates by merge-patch, lists with keyset cursors, deletes with its deliveries', async () => {
    const tenant = await createTenant(t);
    const ids: string[] = [];
    for (let index = 0; index < 3; index += 1) {
      ids.push((await createEndpoint(tenant, { url: receiver.url(`/ok-list-${index}`), enabled_events: ['*'] })).id);
    }
    const first = await t.http.get('/v1/webhook_endpoints?limit=2').set('Authorization', tenant.auth).expect(200);
    expect(first.body.data.map((row: { id: string }) => row.id)).toEqual([ids[2], ids[1]]);
    expect(first.body.pagination.has_more).toBe(true);
    const second = await t.http
      .get(`/v1/webhook_endpoints?limit=2&cursor=${first.body.pagination.cursor}`)
      .set('Authorization', tenant.auth)
      .expect(200);
    expect(second.body).toEqual({
      data: [expect.objectContaining({ id: ids[0] })],
      pagination: { cursor: null, has_more: false },
    });
    expectError(
      await t.http
        .get(`/v1/webhook_endpoints/${ids[0]}/deliveries?cursor=${first.body.pagination.cursor}`)
        .set('Authorization', tenant.auth),
      400,
      'INVALID_CURSOR',
    );

    const patched = await t.http
      .patch(`/v1/webhook_endpoints/${ids[0]}`)
      .set('Authorization', tenant.auth)
      .send({ enabled_events: ['wallet.hold.*', 'cost.created'], description: 'Holds', url: null, metadata: { a: 'b' } })
      .expect(200);
    expect(patched.body).toEqual(
      expect.objectContaining({
        url: receiver.url('/ok-list-0'),
        enabled_events: ['wallet.hold.*', 'cost.created'],
        description: 'Holds',
        metadata: { a: 'b' },
        status: 'enabled',
      }),
    );
    const event = sampleEvent(tenant.liveWorkspaceId, 'wallet.hold.captured');
    expect(await enqueue(t, event, tenant.organization_id)).toBe(3);
    await eventually(async () => (receiver.on('/ok-list-0').length === 1 ? true : undefined), 10_000);

    await t.http.delete(`/v1/webhook_endpoints/${ids[0]}`).set('Authorization', tenant.auth).expect(204);
    expectError(
      await t.http.get(`/v1/webhook_endpoints/${ids[0]}`).set('Authorization', tenant.auth),
      404,
      'WEBHOOK_ENDPOINT_NOT_FOUND',
    );
    expectError(
      await t.http.delete(`/v1/webhook_endpoints/${ids[0]}`).set('Authorization', tenant.auth),
      404,
      'WEBHOOK_ENDPOINT_NOT_FOUND',
    );
    const [left] = await db.query(`SELECT count(*)::int AS n FROM webhook_deliveries WHERE endpoint_id = $1`, [ids[0]]);
    expect(left.n).toBe(0);
  });

  it('answers another organization, the sandbox and unknown ids with 404 WEBHOOK_ENDPOINT_NOT_FOUND on every route', async () => {
    const endpoint = await createEndpoint(a, { url: receiver.url('/ok-tenancy'), enabled_events: ['*'] });
    for (const [auth, id] of [
      [b.auth, endpoint.id],
      [a.sandboxAuth, endpoint.id],
      [a.auth, randomUUID()],
      [a.auth, 'not-a-uuid'],
    ]) {
      expectError(await t.http.get(`/v1/webhook_endpoints/${id}`).set('Authorization', auth), 404, 'WEBHOOK_ENDPOINT_NOT_FOUND');
      expectError(
        await t.http.patch(`/v1/webhook_endpoints/${id}`).set('Authorization', auth).send({ description: 'Hijacked' }),
        404,
        'WEBHOOK_ENDPOINT_NOT_FOUND',
      );
      expectError(
        await t.http.post(`/v1/webhook_endpoints/${id}/rotate_secret`).set('Authorization', auth).set('Idempotency-Key', idem()),
        404,
        'WEBHOOK_ENDPOINT_NOT_FOUND',
      );
      expectError(
        await t.http.get(`/v1/webhook_endpoints/${id}/deliveries`).set('Authorization', auth),
        404,
        'WEBHOOK_ENDPOINT_NOT_FOUND',
      );
      expectError(
        await t.http.delete(`/v1/webhook_endpoints/${id}`).set('Authorization', auth),
        404,
        'WEBHOOK_ENDPOINT_NOT_FOUND',
      );
    }
    const sandboxList = await t.http.get('/v1/webhook_endpoints').set('Authorization', a.sandboxAuth).expect(200);
    expect(sandboxList.body.data).toEqual([]);
    const still = await t.http.get(`/v1/webhook_endpoints/${endpoint.id}`).set('Authorization', a.auth).expect(200);
    expect(still.body.description).toBeNull();
    // A sandbox event reaches only the sandbox's endpoints.
    const sandboxEndpoint = await createEndpoint(a, { url: receiver.url('/ok-sandbox'), enabled_events: ['*'] }, a.sandboxAuth);
    const sandboxEvent = sampleEvent(a.sandboxWorkspaceId, 'customer.created', false);
    expect(await enqueue(t, sandboxEvent, a.organization_id)).toBe(1);
    await eventually(async () => (receiver.on('/ok-sandbox').length === 1 ? true : undefined), 10_000);
    expect(
      new Webhook(sandboxEndpoint.secret).verify(receiver.on('/ok-sandbox')[0].body, receiver.on('/ok-sandbox')[0].headers),
    ).toEqual(sandboxEvent);
  });

  it('refuses bad input with 400 in the contract’s shape', async () => {
    const post = (body: unknown) =>
      t.http
        .post('/v1/webhook_endpoints')
        .set('Authorization', a.auth)
        .set('Idempotency-Key', idem())
        .send(body as object);
    expectFieldError(await post({ url: receiver.url('/ok'), enabled_events: ['nope.*'] }), 'enabled_events[0]', 'INVALID_VALUE');
    expectFieldError(
      await post({ url: receiver.url('/ok'), enabled_events: ['wallet.hold.created', 'customer'] }),
      'enabled_events[1]',
      'INVALID_VALUE',
    );
    expectFieldError(await post({ url: receiver.url('/ok'), enabled_events: [] }), 'enabled_events', 'OUT_OF_RANGE');
    expectError(await post({ url: receiver.url('/ok'), enabled_events: 'wallet.*' }), 400, 'VALIDATION_ERROR');
    expectError(await post({ url: receiver.url('/ok') }), 400, 'VALIDATION_ERROR');
    expectError(await post({ url: receiver.url('/ok'), enabled_events: ['*'], colour: 'red' }), 400, 'VALIDATION_ERROR');
    expectFieldError(await post({ url: 'not a url', enabled_events: ['*'] }), 'url', 'INVALID_FORMAT');
    expectError(await post({ url: receiver.url('/ok'), enabled_events: ['*'], metadata: { k: 7 } }), 400, 'VALIDATION_ERROR');
    const patch = await t.http
      .patch(`/v1/webhook_endpoints/${randomUUID()}`)
      .set('Authorization', a.auth)
      .send({ status: 'paused' });
    expectError(patch, 400, 'VALIDATION_ERROR');
    const endpoint = await createEndpoint(a, { url: receiver.url('/ok-bad-input'), enabled_events: ['*'] });
    expectError(
      await t.http.get(`/v1/webhook_endpoints/${endpoint.id}/deliveries?status=bogus`).set('Authorization', a.auth),
      400,
      'VALIDATION_ERROR',
    );
    expectError(
      await t.http.get(`/v1/webhook_endpoints/${endpoint.id}/deliveries?event_id=42`).set('Authorization', a.auth),
      400,
      'VALIDATION_ERROR',
    );
    expectFieldError(
      await t.http
        .patch(`/v1/webhook_endpoints/${endpoint.id}`)
        .set('Authorization', a.auth)
        .send({ enabled_events: ['wallet.**'] }),
      'enabled_events[0]',
      'INVALID_VALUE',
    );
  });

  it('refuses private, link-local, unique-local and metadata addresses in development; allows http and loopback', async () => {
    for (const url of [
      'http://10.0.0.1/hook',
      'http://192.168.1.20/hook',
      'http://169.254.169.254/latest/meta-data',
      'http://[fd00:ec2::254]/hook',
      'http://[fe80::1]/hook',
      'http://0.0.0.0/hook',
      'ftp://127.0.0.1/hook',
      'http://user:pass@127.0.0.1/hook',
    ]) {
      const response = await t.http
        .post('/v1/webhook_endpoints')
        .set('Authorization', a.auth)
        .set('Idempotency-Key', idem())
        .send({ url, enabled_events: ['*'] });
      expect({ url, status: response.status, code: response.body.error?.code }).toEqual({
        url,
        status: 400,
        code: 'WEBHOOK_URL_NOT_ALLOWED',
      });
    }
    await createEndpoint(a, { url: `http://localhost:${receiver.port}/ok-localhost`, enabled_events: ['*'] });
    const updated = await t.http
      .patch(`/v1/webhook_endpoints/${(await createEndpoint(a, { url: receiver.url('/ok-x'), enabled_events: ['*'] })).id}`)
      .set('Authorization', a.auth)
      .send({ url: 'http://172.16.0.1/hook' });
    expectError(updated, 400, 'WEBHOOK_URL_NOT_ALLOWED');
  });

  describe('wired to the event log: every written event queues its deliveries in its own transaction', () => {
    let c: TestTenant;
    const send = (method: 'post' | 'patch', path: string, body: object, auth: string) =>
      t.http[method](path).set('Authorization', auth).set('Idempotency-Key', idem()).send(body);

    /** A customer and its primary wallet credited with 10.00, then debited 2.50: answers the debit's transaction. */
    async function debitOver(auth: string, name: string) {
      const customer = await send('post', '/v1/customers', { name, currency: 'EUR' }, auth).expect(201);
      const walletId = customer.body.primary_wallet_id as string;
      await send('post', `/v1/wallets/${walletId}/credit`, { amount: '10.00' }, auth).expect(200);
      return (await send('post', `/v1/wallets/${walletId}/debit`, { amount: '2.50' }, auth).expect(200)).body;
    }

    /** The workspace's wallet.transaction.created event of a ledger line (GET /v1/events/{id} as answered). */
    async function eventOf(auth: string, transactionId: string) {
      const listed = await t.http.get('/v1/events?type=wallet.transaction.created').set('Authorization', auth).expect(200);
      const event = listed.body.data.find((row: any) => row.data.object.id === transactionId);
      expect(event).toBeDefined();
      return (await t.http.get(`/v1/events/${event.id}`).set('Authorization', auth).expect(200)).body;
    }

    beforeAll(async () => {
      c = await createTenant(t);
    });

    it('sends nothing and writes no delivery for a workspace without a matching endpoint (a sandbox debit never reaches a live endpoint)', async () => {
      await createEndpoint(c, { url: receiver.url('/ok-wired-live-all'), enabled_events: ['*'] });
      const transaction = await debitOver(c.sandboxAuth, 'Sandbox payer');
      const event = await eventOf(c.sandboxAuth, transaction.id);
      expect(event.livemode).toBe(false);
      // Queued in the change's transaction or not at all: nothing for the sandbox's events, now or later.
      const sandboxEvents: Array<{ id: string }> = await db.query(`SELECT id FROM events WHERE workspace_id = $1`, [
        c.sandboxWorkspaceId,
      ]);
      expect(sandboxEvents.length).toBeGreaterThanOrEqual(4);
      const ids = sandboxEvents.map((row) => row.id);
      expect(await db.query(`SELECT event_id FROM webhook_deliveries WHERE event_id = ANY($1)`, [ids])).toEqual([]);
      expect(await db.query(`SELECT event_id FROM webhook_event_payloads WHERE event_id = ANY($1)`, [ids])).toEqual([]);
      expect(receiver.received.filter((request) => ids.includes(request.headers['webhook-id']))).toEqual([]);
    });

    it('delivers a real debit’s wallet.transaction.created, signed, its body the event as GET /v1/events/{id} answers it; a customer.* endpoint gets no wallet event; redeliver sends it again with the same webhook-id', async () => {
      const wallets = await createEndpoint(c, {
        url: receiver.url('/ok-wired-wallets'),
        enabled_events: ['wallet.transaction.created'],
      });
      const customers = await createEndpoint(c, { url: receiver.url('/ok-wired-customers'), enabled_events: ['customer.*'] });
      const transaction = await debitOver(c.auth, 'Live payer');
      const event = await eventOf(c.auth, transaction.id);
      expect(event).toEqual(expect.objectContaining({ type: 'wallet.transaction.created', livemode: true }));
      expect(event.data.object).toEqual(transaction);

      const received = () => receiver.on('/ok-wired-wallets').filter((request) => request.headers['webhook-id'] === event.id);
      await eventually(async () => (received().length === 1 ? true : undefined), 15_000);
      const [first] = received();
      expect(new Webhook(wallets.secret).verify(first.body, first.headers)).toEqual(event);
      expect(JSON.parse(first.body)).toEqual(event);
      // The credit's line too, and nothing else: the endpoint's filter is the exact type.
      await eventually(async () => (receiver.on('/ok-wired-wallets').length === 2 ? true : undefined), 15_000);
      expect(receiver.on('/ok-wired-wallets').map((request) => JSON.parse(request.body).type)).toEqual([
        'wallet.transaction.created',
        'wallet.transaction.created',
      ]);
      // The customer.* endpoint: the customer's creation, never a wallet event.
      await eventually(async () => (receiver.on('/ok-wired-customers').length === 1 ? true : undefined), 15_000);
      const [created] = receiver.on('/ok-wired-customers');
      expect(new Webhook(customers.secret).verify(created.body, created.headers)).toEqual(
        expect.objectContaining({ type: 'customer.created' }),
      );
      const [delivered] = await deliveries(c, wallets.id, `?event_id=${event.id}`);
      await eventually(
        async () => ((await deliveries(c, wallets.id, `?event_id=${event.id}`))[0].status === 'succeeded' ? true : undefined),
        15_000,
      );
      expect(delivered).toEqual(expect.objectContaining({ event_id: event.id, event_type: 'wallet.transaction.created' }));

      // Sent again on request, to an endpoint whose filter would not select it too: the same webhook-id, the same body.
      const again = await send('post', `/v1/events/${event.id}/redeliver`, { endpoint_id: wallets.id }, c.auth).expect(202);
      expect(again.body).toEqual(
        expect.objectContaining({
          object: 'webhook_delivery',
          endpoint_id: wallets.id,
          event_id: event.id,
          status: 'pending',
          attempt: 0,
        }),
      );
      await eventually(async () => (received().length === 2 ? true : undefined), 15_000);
      const second = received()[1];
      expect(second.headers['webhook-id']).toBe(first.headers['webhook-id']);
      expect(new Webhook(wallets.secret).verify(second.body, second.headers)).toEqual(event);
      await send('post', `/v1/events/${event.id}/redeliver`, { endpoint_id: customers.id }, c.auth).expect(202);
      await eventually(async () => (receiver.on('/ok-wired-customers').length === 2 ? true : undefined), 15_000);
      expect(JSON.parse(receiver.on('/ok-wired-customers')[1].body)).toEqual(event);
      expect((await deliveries(c, wallets.id, `?event_id=${event.id}`)).map((row) => row.id)).toContain(again.body.id);
    });

    it('refuses a redelivery of another tenant’s event or to another tenant’s endpoint (404), bad input (400), and without webhook_endpoints:write (403)', async () => {
      const own = await createEndpoint(c, { url: receiver.url('/ok-wired-refusals'), enabled_events: ['customer.created'] });
      const foreignEndpoint = await createEndpoint(b, { url: receiver.url('/ok-wired-foreign'), enabled_events: ['*'] });
      await send('post', '/v1/customers', { name: 'Foreign customer', currency: 'EUR' }, b.auth).expect(201);
      const [ownEvent] = (await t.http.get('/v1/events?limit=1').set('Authorization', c.auth).expect(200)).body.data;
      const [foreignEvent] = (await t.http.get('/v1/events?limit=1').set('Authorization', b.auth).expect(200)).body.data;
      const redeliver = (eventId: string, body: object, auth = c.auth) =>
        send('post', `/v1/events/${eventId}/redeliver`, body, auth);
      expectError(await redeliver(foreignEvent.id, { endpoint_id: own.id }), 404, 'EVENT_NOT_FOUND');
      expectError(await redeliver(randomUUID(), { endpoint_id: own.id }), 404, 'EVENT_NOT_FOUND');
      expectError(await redeliver('not-a-uuid', { endpoint_id: own.id }), 404, 'EVENT_NOT_FOUND');
      // The sandbox's events are another workspace's.
      expectError(await redeliver(ownEvent.id, { endpoint_id: own.id }, c.sandboxAuth), 404, 'EVENT_NOT_FOUND');
      expectError(await redeliver(ownEvent.id, { endpoint_id: foreignEndpoint.id }), 404, 'WEBHOOK_ENDPOINT_NOT_FOUND');
      expectError(await redeliver(ownEvent.id, { endpoint_id: randomUUID() }), 404, 'WEBHOOK_ENDPOINT_NOT_FOUND');
      for (const body of [{}, { endpoint_id: 42 }]) {
        const refused = expectError(await redeliver(ownEvent.id, body), 400, 'VALIDATION_ERROR');
        expect(refused.errors).toEqual(expect.arrayContaining([expect.objectContaining({ param: 'endpoint_id' })]));
      }
      const reader = await createKey(t, c.auth, { name: 'reader', scopes: ['events:read', 'webhook_endpoints:read'] });
      expectError(await redeliver(ownEvent.id, { endpoint_id: own.id }, `Bearer ${reader.secret}`), 403, 'INSUFFICIENT_SCOPE');
      expect(await deliveries(c, own.id)).toEqual([]);
    });
  });
});

describe('Webhook URLs in production', () => {
  let t: TestApp;
  let tenant: TestTenant;
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    receiver = await new WebhookReceiver().start();
    t = await createTestApp({
      env: { NODE_ENV: 'production', APP_SECRET: 'production-test-secret-0123456789abcdef', SHUTDOWN_DRAIN_MS: '0' },
    });
    tenant = await createTenant(t);
  });
  afterAll(async () => {
    await receiver.close();
    await t.close();
  });

  it('takes https only, and refuses a host name that resolves to 127.0.0.1 at create', async () => {
    for (const url of [
      `http://localhost:${receiver.port}/hook`,
      `https://localhost:${receiver.port}/hook`,
      `https://127.0.0.1:${receiver.port}/hook`,
      'https://[::1]/hook',
      'http://hooks.example.com/hook',
    ]) {
      const response = await t.http
        .post('/v1/webhook_endpoints')
        .set('Authorization', tenant.auth)
        .set('Idempotency-Key', idem())
        .send({ url, enabled_events: ['*'] });
      expect({ url, status: response.status, code: response.body.error?.code }).toEqual({
        url,
        status: 400,
        code: 'WEBHOOK_URL_NOT_ALLOWED',
      });
    }
  });

  it('checks again at delivery, after resolution: a name now resolving to 127.0.0.1 gets no request', async () => {
    // Created with a public address, then the name is made to resolve to 127.0.0.1 (as DNS rebinding
    // would): `localhost` stands for that name, so the check must come from the delivery itself.
    const db = t.app.get(DataSource);
    const created = await t.http
      .post('/v1/webhook_endpoints')
      .set('Authorization', tenant.auth)
      .set('Idempotency-Key', idem())
      .send({ url: 'https://93.184.215.14/hook', enabled_events: ['*'] })
      .expect(201);
    await db.query(`UPDATE webhook_endpoints SET url = $2 WHERE id = $1`, [
      created.body.id,
      `https://localhost:${receiver.port}/rebound`,
    ]);
    const event = sampleEvent(tenant.liveWorkspaceId, 'customer.created');
    expect(await enqueue(t, event, tenant.organization_id)).toBe(1);
    const [row] = await eventually(async () => {
      const rows = (await t.http.get(`/v1/webhook_endpoints/${created.body.id}/deliveries`).set('Authorization', tenant.auth))
        .body.data;
      return rows?.[0]?.attempt === 1 ? rows : undefined;
    }, 10_000);
    expect(row).toEqual(expect.objectContaining({ status: 'pending', response_status: null }));
    expect(row.error).toMatch(/^WEBHOOK_URL_NOT_ALLOWED: .*127\.0\.0\.1/);
    expect(receiver.received).toEqual([]);
  });
});

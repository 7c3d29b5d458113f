import { ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { RETRY_DELAYS_MS } from '@app/webhooks';
import { eventually } from '../support/auth-helpers';
import { createTenant, idem, TestTenant } from '../support/tenants';
import { createTestApp, TestApp } from '../support/test-app';

jest.setTimeout(90_000);

const ROOT = join(__dirname, '../..');
const GUIDE = readFileSync(join(ROOT, 'docs/webhooks.md'), 'utf8');

/** The guide's Node.js receiver, exactly as the guide shows it. */
function receiverSnippet(): string {
  const section = GUIDE.slice(GUIDE.indexOf('## Verifying a delivery (Node.js)'));
  const match = /```js\n([\s\S]*?)```/.exec(section);
  if (!match) throw new Error('docs/webhooks.md has no js block under "Verifying a delivery (Node.js)"');
  return match[1];
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/**
 * docs/webhooks.md, the integrator's guide, against the real thing: its receiver snippet, run as
 * a process of its own, verifies real deliveries with `standardwebhooks`, refuses a forged one,
 * and processes a redelivered event once; the retry schedule it states is the dispatcher's.
 */
describe('The webhooks guide (docs/webhooks.md)', () => {
  let t: TestApp;
  let tenant: TestTenant;
  let receiver: ChildProcess;
  let output = '';
  let port: number;

  beforeAll(async () => {
    t = await createTestApp();
    tenant = await createTenant(t);
  });
  afterAll(async () => {
    receiver?.kill();
    await t.close();
  });

  it('states the dispatcher’s retry schedule', () => {
    const human = (ms: number) =>
      ms < 60_000 ? `${ms / 1000} s` : ms < 3_600_000 ? `${ms / 60_000} min` : `${ms / 3_600_000} h`;
    const listed = RETRY_DELAYS_MS.map(human);
    expect(GUIDE).toContain(`**${listed.slice(0, -1).join(', ')} and ${listed[listed.length - 1]}**`);
  });

  it('runs the guide’s receiver: real deliveries verify, a forged one is refused, a redelivery is processed once', async () => {
    port = await freePort();
    const endpoint = (
      await t.http
        .post('/v1/webhook_endpoints')
        .set('Authorization', tenant.auth)
        .set('Idempotency-Key', idem())
        .send({ url: `http://127.0.0.1:${port}/billing`, enabled_events: ['customer.created'] })
        .expect(201)
    ).body;
    // --input-type=module -e resolves `standardwebhooks` from the working directory: the repository's node_modules.
    receiver = spawn(process.execPath, ['--input-type=module', '-e', receiverSnippet()], {
      cwd: ROOT,
      env: { ...process.env, BILLING_WEBHOOK_SECRET: endpoint.secret, PORT: String(port) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    receiver.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    receiver.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    const url = `http://127.0.0.1:${port}/billing`;
    await eventually(
      async () => ((await fetch(url, { method: 'POST', body: '{}' }).catch(() => undefined)) ? true : undefined),
      10_000,
    );

    const forged = await fetch(url, {
      method: 'POST',
      headers: {
        'webhook-id': 'msg_forged',
        'webhook-timestamp': String(Math.floor(Date.now() / 1000)),
        'webhook-signature': 'v1,Zm9yZ2Vk',
      },
      body: '{"type":"customer.created"}',
    });
    expect(forged.status).toBe(400);

    const customer = (
      await t.http
        .post('/v1/customers')
        .set('Authorization', tenant.auth)
        .set('Idempotency-Key', idem())
        .send({ name: 'Guide reader', currency: 'EUR' })
        .expect(201)
    ).body;
    const [event] = (await t.http.get('/v1/events?type=customer.created').set('Authorization', tenant.auth).expect(200)).body
      .data;
    const line = `customer.created ${event.sequence} ${customer.id}`;
    await eventually(async () => (output.includes(line) ? true : undefined), 20_000);

    await t.http
      .post(`/v1/events/${event.id}/redeliver`)
      .set('Authorization', tenant.auth)
      .set('Idempotency-Key', idem())
      .send({ endpoint_id: endpoint.id })
      .expect(202);
    await eventually(async () => {
      const deliveries = (
        await t.http.get(`/v1/webhook_endpoints/${endpoint.id}/deliveries`).set('Authorization', tenant.auth).expect(200)
      ).body.data;
      return deliveries.length === 2 && deliveries.every((delivery: any) => delivery.status === 'succeeded') ? true : undefined;
    }, 20_000);
    expect(output.trim().split('\n')).toEqual([line]);
  });
});

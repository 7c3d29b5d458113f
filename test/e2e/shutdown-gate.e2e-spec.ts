import { randomUUID } from 'node:crypto';
import { ShutdownGate } from '../../apps/api/src/http/shutdown-gate';
import { createTestApp, TestApp } from '../support/test-app';

/**
 * The HTTP side of a graceful shutdown (main.ts drives the phases; the reliability suite
 * graceful-shutdown checks the real process under load): while draining, readiness answers 503
 * and every other route is served with `Connection: close`; once refusing, every documented route
 * answers 503 SHUTTING_DOWN with Retry-After, as its OpenAPI entry says.
 */
describe('Shutdown gate: drain, then refuse every route', () => {
  let t: TestApp;
  let document: any;

  beforeAll(async () => {
    t = await createTestApp();
    document = (await t.http.get('/openapi.json').expect(200)).body;
  });
  afterAll(() => t.close());

  function expectShuttingDown(response: { status: number; headers: Record<string, string>; body: any }): void {
    expect({ status: response.status, retryAfter: response.headers['retry-after'], body: response.body }).toEqual({
      status: 503,
      retryAfter: '1',
      body: {
        error: {
          type: 'api_error',
          code: 'SHUTTING_DOWN',
          message: expect.any(String),
          status: 503,
          request_id: response.headers['request-id'],
          details: { retry_after_seconds: 1 },
        },
      },
    });
  }

  // supertest asks for `Connection: close` unless told otherwise; a kept-alive client does not.
  const keepAlive = { Connection: 'keep-alive' };

  it('serves as usual before a shutdown starts', async () => {
    const ready = await t.http.get('/health/ready').set(keepAlive).expect(200);
    expect(ready.headers.connection).toBe('keep-alive');
  });

  it('while draining: readiness 503 SHUTTING_DOWN at once; other routes still served, each closing its connection', async () => {
    t.app.get(ShutdownGate).drain();
    const ready = await t.http.get('/health/ready').set(keepAlive);
    expectShuttingDown(ready);
    expect(ready.headers.connection).toBe('close');

    const live = await t.http.get('/health/live').set(keepAlive).expect(200);
    expect(live.headers.connection).toBe('close');
    const unauthenticated = await t.http.get('/v1/wallets').set(keepAlive).expect(401);
    expect(unauthenticated.headers.connection).toBe('close');
  });

  it('once refusing: every documented route answers 503 SHUTTING_DOWN with Retry-After, and documents it', async () => {
    t.app.get(ShutdownGate).refuse();
    const operations = Object.entries<Record<string, any>>(document.paths).flatMap(([path, item]) =>
      Object.entries<any>(item)
        .filter(([method]) => ['get', 'post', 'put', 'patch', 'delete'].includes(method))
        .map(([method, operation]) => ({ method, path, operation })),
    );
    expect(operations.length).toBeGreaterThan(50);
    const undocumented: string[] = [];
    for (const { method, path, operation } of operations) {
      const url = path.replace(/\{[^}]+\}/g, randomUUID());
      const response = await (t.http as any)[method](url).set(keepAlive).set('Idempotency-Key', randomUUID());
      expectShuttingDown(response);
      expect(response.headers.connection).toBe('close');
      const documented = operation.responses?.['503'];
      if (!documented?.content?.['application/json']?.examples?.SHUTTING_DOWN || !documented.headers?.['Retry-After']) {
        undocumented.push(`${method.toUpperCase()} ${path}`);
      }
    }
    expect(undocumented).toEqual([]);
    // Readiness keeps its own 503 (checks) beside the error body.
    const ready = document.paths['/health/ready'].get.responses['503'];
    expect(ready.content['application/json'].schema.oneOf).toEqual([
      { $ref: '#/components/schemas/ReadinessDto' },
      { $ref: '#/components/schemas/ErrorBody' },
    ]);
    expect(ready.description).toMatch(/migration is pending[\s\S]*SHUTTING_DOWN/);
  });
});

import { createHmac, hkdfSync } from 'node:crypto';
import { DataSource } from 'typeorm';
import { PROBE_TABLE_SQL, ProbeModule } from '../support/probe.module';
import { RawClient, rawClient, RawResponse } from '../support/raw-http';
import { createTestApp, TEST_APP_SECRET, TestApp } from '../support/test-app';
import { createKey, createTenant, TestTenant } from '../support/tenants';

const REQUEST_ID = /^req_[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

function expectErrorBody(body: any, status: number, type: string, code: string, requestId: string): void {
  expect(body).toEqual({
    error: expect.objectContaining({ type, code, status, request_id: requestId, message: expect.any(String) }),
  });
  expect(Object.keys(body.error).sort()).toEqual(expect.arrayContaining(['code', 'message', 'request_id', 'status', 'type']));
}

describe('HTTP edge: errors, request ids, prefixes, limits', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp({ imports: [ProbeModule] });
    await t.app.get(DataSource).query(PROBE_TABLE_SQL);
  });
  afterAll(() => t.close());

  it('answers a known route under /v1 and without the prefix, with a Request-Id', async () => {
    const prefixed = await t.http.post('/v1/probes').send({ text: 'hello' }).expect(201);
    expect(prefixed.headers['request-id']).toMatch(REQUEST_ID);
    expect(prefixed.body).toEqual({ object: 'probe_note', id: expect.any(String) });
    const bare = await t.http.post('/probes').send({ text: 'hello again' }).expect(201);
    expect(bare.headers['request-id']).toMatch(REQUEST_ID);
    expect(bare.headers['request-id']).not.toEqual(prefixed.headers['request-id']);
  });

  it('answers an unknown route with a 404 in the error shape', async () => {
    for (const path of ['/v1/nowhere', '/nowhere']) {
      const response = await t.http.get(path).expect(404);
      expect(response.headers['content-type']).toMatch(/application\/json/);
      expectErrorBody(response.body, 404, 'invalid_request_error', 'ROUTE_NOT_FOUND', response.headers['request-id']);
    }
  });

  it('refuses malformed JSON with 400 MALFORMED_REQUEST and writes nothing', async () => {
    const response = await t.http.post('/v1/probes').set('Content-Type', 'application/json').send('{"text": "x",').expect(400);
    expectErrorBody(response.body, 400, 'invalid_request_error', 'MALFORMED_REQUEST', response.headers['request-id']);
    const empty = await t.http.post('/v1/probes').set('Content-Type', 'application/json').send('').expect(400);
    expect(empty.body.error.code).toBe('MALFORMED_REQUEST');
  });

  it('refuses unknown body fields with 400 VALIDATION_ERROR and UNKNOWN_PARAMETER', async () => {
    const response = await t.http.post('/v1/probes').send({ text: 'ok', balance: '100.00' }).expect(400);
    expectErrorBody(response.body, 400, 'invalid_request_error', 'VALIDATION_ERROR', response.headers['request-id']);
    expect(response.body.error.errors).toEqual([
      { param: 'balance', code: 'UNKNOWN_PARAMETER', message: 'Unknown parameter: balance.' },
    ]);
    expect(response.body.error.param).toBe('balance');
  });

  it('names nested parameters and reports every invalid field', async () => {
    const response = await t.http
      .post('/v1/probes')
      .send({ text: 7, address: { city: 'x'.repeat(30), zip: '1' } })
      .expect(400);
    expect(response.body.error.code).toBe('VALIDATION_ERROR');
    expect(response.body.error.errors).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ param: 'text', code: 'INVALID_TYPE' }),
        expect.objectContaining({ param: 'address.city', code: 'OUT_OF_RANGE' }),
        expect.objectContaining({ param: 'address.zip', code: 'UNKNOWN_PARAMETER' }),
      ]),
    );
  });

  it('refuses unknown query parameters, on routes with and without a query DTO', async () => {
    const withDto = await t.http.get('/v1/probes?colour=red').expect(400);
    expect(withDto.body.error.errors).toEqual([expect.objectContaining({ param: 'colour', code: 'UNKNOWN_PARAMETER' })]);
    const withoutDto = await t.http.get('/v1/probes/boom?debug=1').expect(400);
    expect(withoutDto.body.error.errors).toEqual([expect.objectContaining({ param: 'debug', code: 'UNKNOWN_PARAMETER' })]);
  });

  describe('bodies nested deeper than 32 levels', () => {
    const nested = (depth: number, inner = '"x"') => `${'['.repeat(depth)}${inner}${']'.repeat(depth)}`;
    /** About 30 KB of `[[[…]]]` used to overflow class-transformer's stack: a 500. */
    const deep = `{"text": ${nested(15_000)}}`;

    it('refuses them with 400 MALFORMED_REQUEST on every route, public and authenticated', async () => {
      const routes = [
        '/v1/probes',
        '/probes',
        '/v1/sessions',
        '/v1/customers',
        '/v1/wallets/0193a5c2-7f4e-7b1a-9c1d-2f0e4b5a6d03/debit',
      ];
      for (const path of routes) {
        const response = await t.http.post(path).set('Content-Type', 'application/json').send(deep);
        expect({ path, status: response.status }).toEqual({ path, status: 400 });
        expectErrorBody(response.body, 400, 'invalid_request_error', 'MALFORMED_REQUEST', response.headers['request-id']);
      }
      const [{ count }] = await t.app
        .get(DataSource)
        .query(`SELECT count(*)::int AS count FROM probe_notes WHERE text LIKE '[%'`);
      expect(count).toBe(0);
    });

    it('counts levels of arrays and objects alike: 32 reach validation, 33 do not', async () => {
      const objects = (depth: number) => `${'{"a":'.repeat(depth - 1)}{}${'}'.repeat(depth - 1)}`;
      for (const [body, code] of [
        [`{"text": ${nested(31)}}`, 'VALIDATION_ERROR'],
        [`{"text": ${nested(32)}}`, 'MALFORMED_REQUEST'],
        [objects(32), 'VALIDATION_ERROR'],
        [objects(33), 'MALFORMED_REQUEST'],
      ]) {
        const response = await t.http.post('/v1/probes').set('Content-Type', 'application/json').send(body);
        expect({ body: body.slice(0, 12), code: response.body.error?.code }).toEqual({ body: body.slice(0, 12), code });
      }
    });

    it('still hands signed webhooks the exact bytes received', async () => {
      const key = Buffer.from(hkdfSync('sha256', TEST_APP_SECRET, 'billing-api', 'webhooks:sandbox', 32));
      const sign = (body: string) => {
        const timestamp = Math.floor(Date.now() / 1000);
        return `t=${timestamp},v1=${createHmac('sha256', key).update(`${timestamp}.${body}`).digest('hex')}`;
      };
      // Odd spacing: a signature over re-serialized JSON would not match.
      const body = '{ "id" : "evt_depth",  "type": "top_up.unknown", "data": {} }';
      const verified = await t.http
        .post('/v1/webhooks/payments/sandbox')
        .set('Content-Type', 'application/json')
        .set('Billing-Signature', sign(body))
        .send(body);
      expect(`${verified.status} ${verified.body.error?.code}`).toBe('400 UNSUPPORTED_EVENT');
      const tooDeep = `{"id": "evt_deep", "type": "top_up.succeeded", "data": ${nested(40, '{}')}}`;
      const refused = await t.http
        .post('/v1/webhooks/payments/sandbox')
        .set('Content-Type', 'application/json')
        .set('Billing-Signature', sign(tooDeep))
        .send(tooDeep);
      expectErrorBody(refused.body, 400, 'invalid_request_error', 'MALFORMED_REQUEST', refused.headers['request-id']);
    });
  });

  it('answers 413 PAYLOAD_TOO_LARGE above 1 MB', async () => {
    const response = await t.http
      .post('/v1/probes')
      .set('Content-Type', 'application/json')
      .send(JSON.stringify({ text: 'x'.repeat(1024 * 1024) }))
      .expect(413);
    expectErrorBody(response.body, 413, 'invalid_request_error', 'PAYLOAD_TOO_LARGE', response.headers['request-id']);
  });

  it('answers 415 for a body that is not JSON', async () => {
    const response = await t.http.post('/v1/probes').set('Content-Type', 'text/plain').send('text=hello').expect(415);
    expectErrorBody(response.body, 415, 'invalid_request_error', 'UNSUPPORTED_MEDIA_TYPE', response.headers['request-id']);
  });

  it.each([
    ['application/x-www-form-urlencoded', 'text=hello'],
    ['multipart/form-data; boundary=x', '--x\r\nContent-Disposition: form-data; name="text"\r\n\r\nhello\r\n--x--\r\n'],
    ['application/xml', '<text>hello</text>'],
    ['application/octet-stream', 'text=hello'],
    ['text/html', '<p>hello</p>'],
  ])('answers 415 for a body sent as %s', async (type, body) => {
    const response = await t.http.post('/v1/probes').set('Content-Type', type).send(body).expect(415);
    expectErrorBody(response.body, 415, 'invalid_request_error', 'UNSUPPORTED_MEDIA_TYPE', response.headers['request-id']);
  });

  it('still reads JSON bodies with a UTF-8 charset parameter; another charset is 415', async () => {
    await t.http.post('/v1/probes').set('Content-Type', 'application/json; charset=utf-8').send('{"text":"hello"}').expect(201);
    const response = await t.http
      .post('/v1/probes')
      .set('Content-Type', 'application/json; charset=utf-16')
      .send('{"text":"hello"}')
      .expect(415);
    expectErrorBody(response.body, 415, 'invalid_request_error', 'UNSUPPORTED_MEDIA_TYPE', response.headers['request-id']);
  });

  describe('what Node and the router refuse before any route, and repeated or reserved names', () => {
    let client: RawClient;
    beforeAll(async () => {
      client = await rawClient(t);
    });
    afterAll(() => client.close());

    const expectRefused = (response: RawResponse, status: number, code: string) => {
      expect(response.headers['request-id']).toMatch(REQUEST_ID);
      expectErrorBody(response.json, status, 'invalid_request_error', code, response.headers['request-id']);
    };

    it.each([16_500, 100_000])('answers headers of %d bytes with 431 HEADERS_TOO_LARGE, not a reset', async (size) => {
      const response = await client.send({ method: 'GET', path: '/v1/nowhere', headers: [['X-Padding', 'p'.repeat(size)]] });
      expectRefused(response, 431, 'HEADERS_TOO_LARGE');
    });

    it('answers an HTTP/1.1 request without Host with 400 MALFORMED_REQUEST', async () => {
      const response = await client.sendBytes(Buffer.from('GET /v1/nowhere HTTP/1.1\r\nConnection: close\r\n\r\n', 'latin1'));
      expectRefused(response, 400, 'MALFORMED_REQUEST');
      expect(response.json.error.param).toBe('Host');
    });

    it('answers a control character in a header with 400 MALFORMED_REQUEST', async () => {
      const response = await client.sendBytes(
        Buffer.from('GET /v1/nowhere HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer a\x01b\r\nConnection: close\r\n\r\n', 'latin1'),
      );
      expectRefused(response, 400, 'MALFORMED_REQUEST');
    });

    it.each(['Authorization', 'Idempotency-Key', 'X-Workspace-Id', 'Content-Type'])('refuses %s sent twice', async (name) => {
      const response = await client.send({
        method: 'GET',
        path: '/v1/nowhere',
        headers: [
          [name, 'a'],
          [name, 'b'],
        ],
      });
      expectRefused(response, 400, 'DUPLICATE_HEADER');
      expect(response.json.error.param).toBe(name);
    });

    it.each(['/v1/probes/%E0%A4%A', `/v1/wallets/${'x'.repeat(101)}`])(
      'answers the router refusing %s with 400 MALFORMED_REQUEST',
      async (path) => {
        expectRefused(await client.send({ method: 'GET', path, headers: [] }), 400, 'MALFORMED_REQUEST');
      },
    );

    it('refuses keys named like Object.prototype members, in a query and at any depth of a body', async () => {
      const query = await t.http.get('/v1/probes/boom?valueOf=1').expect(400);
      expect(query.body.error.errors).toEqual(
        expect.arrayContaining([expect.objectContaining({ param: 'valueOf', code: 'RESERVED_KEY' })]),
      );
      const body = await t.http
        .post('/v1/probes')
        .send({ text: 'x', nested: [{ constructor: 'x' }] })
        .expect(400);
      expect(body.body.error.errors).toEqual(
        expect.arrayContaining([expect.objectContaining({ param: 'nested[0].constructor', code: 'RESERVED_KEY' })]),
      );
    });
  });

  it('turns an unexpected error into a 500 that leaks nothing', async () => {
    const response = await t.http.get('/v1/probes/boom').expect(500);
    expectErrorBody(response.body, 500, 'api_error', 'INTERNAL_ERROR', response.headers['request-id']);
    const raw = JSON.stringify(response.body);
    expect(raw).not.toMatch(/secret|postgres:|at \w+ \(|\.ts:\d+/);
  });

  it('maps domain errors to their status, type and code', async () => {
    const response = await t.http.post('/v1/probes').send({ text: 'refuse me', fail_after_write: true }).expect(422);
    expectErrorBody(response.body, 422, 'business_rule_error', 'PROBE_REFUSED', response.headers['request-id']);
  });

  it('paginates with signed cursors bound to the list and its filters', async () => {
    for (let i = 0; i < 5; i += 1)
      await t.http
        .post('/v1/probes')
        .send({ text: `page-${i}` })
        .expect(201);
    const first = await t.http.get('/v1/probes?limit=2&starts_with=page-').expect(200);
    expect(first.body.data).toHaveLength(2);
    expect(first.body.pagination).toEqual({ cursor: expect.any(String), has_more: true });
    const seen = first.body.data.map((row: { text: string }) => row.text);
    let cursor: string | null = first.body.pagination.cursor;
    while (cursor) {
      const next = await t.http.get(`/v1/probes?limit=2&starts_with=page-&cursor=${encodeURIComponent(cursor)}`).expect(200);
      seen.push(...next.body.data.map((row: { text: string }) => row.text));
      cursor = next.body.pagination.cursor;
      if (!next.body.pagination.has_more) expect(cursor).toBeNull();
    }
    expect(seen).toEqual(['page-4', 'page-3', 'page-2', 'page-1', 'page-0']);

    const foreign = await t.http
      .get(`/v1/probes?limit=2&starts_with=other&cursor=${encodeURIComponent(first.body.pagination.cursor)}`)
      .expect(400);
    expect(foreign.body.error.code).toBe('INVALID_CURSOR');
    const tampered = `${first.body.pagination.cursor.slice(0, -2)}AA`;
    const refused = await t.http.get(`/v1/probes?limit=2&starts_with=page-&cursor=${tampered}`).expect(400);
    expect(refused.body.error.code).toBe('INVALID_CURSOR');
  });

  it('clamps large limits and falls back to the default on invalid ones', async () => {
    const clamped = await t.http.get('/v1/probes?limit=100000').expect(200);
    expect(clamped.body.data.length).toBeLessThanOrEqual(200);
    const fallback = await t.http.get('/v1/probes?limit=abc').expect(200);
    expect(fallback.body.pagination).toEqual(expect.objectContaining({ has_more: expect.any(Boolean) }));
  });
});

describe('HTTP edge: rate limits', () => {
  let t: TestApp;
  let tenant: TestTenant;
  let address = 0;
  /** Each test calls from addresses of its own (TRUST_PROXY trusts the test client's X-Forwarded-For). */
  const nextAddress = () => `198.51.100.${(address += 1)}`;

  beforeAll(async () => {
    t = await createTestApp({ imports: [ProbeModule], env: { RATE_LIMIT_PER_MINUTE: '3', TRUST_PROXY: 'true' } });
    tenant = await createTenant(t);
  });
  afterAll(() => t.close());

  it('sends RateLimit headers and answers 429 RATE_LIMITED with Retry-After past the limit', async () => {
    const from = nextAddress();
    const get = () => t.http.get('/v1/nowhere').set('X-Forwarded-For', from).set('Authorization', 'Bearer caller-a');
    const first = await get().expect(404);
    expect(first.headers['ratelimit-policy']).toBe('"default";q=3;w=60');
    expect(first.headers['ratelimit']).toMatch(/^"default";r=2;t=\d+$/);
    await get().expect(404);
    await get().expect(404);
    const limited = await get().expect(429);
    expectErrorBody(limited.body, 429, 'rate_limit_error', 'RATE_LIMITED', limited.headers['request-id']);
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    expect(limited.headers['ratelimit']).toMatch(/^"default";r=0;t=\d+$/);

    // Another address has a budget of its own; health checks are never limited.
    await t.http.get('/v1/nowhere').set('X-Forwarded-For', nextAddress()).expect(404);
    await t.http.get('/health/live').set('X-Forwarded-For', from).expect(200);
  });

  it('counts the authenticated principal, however its Authorization header is spelled and wherever it calls from', async () => {
    // Another key of the same organization is another principal (minting it is this key's first request).
    const other = await createKey(
      t,
      tenant.auth,
      { name: 'second', scopes: ['customers:read'] },
      { 'X-Forwarded-For': nextAddress() },
    );
    const token = tenant.auth.replace(/^Bearer /, '');
    for (const authorization of [`bearer ${token}`, `BEARER ${token}`]) {
      await t.http.get('/v1/customers').set('X-Forwarded-For', nextAddress()).set('Authorization', authorization).expect(200);
    }
    const limited = await t.http
      .get('/v1/customers')
      .set('X-Forwarded-For', nextAddress())
      .set('Authorization', `bEaReR ${token}`);
    expectErrorBody(limited.body, 429, 'rate_limit_error', 'RATE_LIMITED', limited.headers['request-id']);
    expect(limited.headers['ratelimit']).toMatch(/^"default";r=0;t=\d+$/);
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    await t.http
      .get('/v1/customers')
      .set('X-Forwarded-For', nextAddress())
      .set('Authorization', `Bearer ${other.secret}`)
      .expect(200);
  });

  it('counts refused credentials and public routes against the client address: fresh junk tokens share one budget', async () => {
    const from = nextAddress();
    for (let i = 0; i < 3; i += 1) {
      const refused = await t.http
        .get('/v1/customers')
        .set('X-Forwarded-For', from)
        .set('Authorization', `Bearer sk_live_junk${i}`);
      expectErrorBody(refused.body, 401, 'authentication_error', 'UNAUTHENTICATED', refused.headers['request-id']);
    }
    const limited = await t.http.get('/v1/customers').set('X-Forwarded-For', from).set('Authorization', 'Bearer sk_live_junk3');
    expectErrorBody(limited.body, 429, 'rate_limit_error', 'RATE_LIMITED', limited.headers['request-id']);

    // Sign-in is public: each junk Authorization value is the same caller, its address.
    const signInFrom = nextAddress();
    const signIn = (i: number) =>
      t.http
        .post('/v1/sessions')
        .set('X-Forwarded-For', signInFrom)
        .set('Authorization', `Bearer junk-${i}`)
        .send({ organization_id: tenant.organization_id, email: `nobody-${i}@example.com`, password: 'not the password' });
    for (let i = 0; i < 3; i += 1) expect((await signIn(i)).status).toBe(401);
    const throttled = await signIn(3);
    expectErrorBody(throttled.body, 429, 'rate_limit_error', 'RATE_LIMITED', throttled.headers['request-id']);
  });
});

import { createTenant, idem, TestTenant } from '../support/tenants';
import { createTestApp, TestApp } from '../support/test-app';

jest.setTimeout(30_000);

/** The messages a newcomer meets first say what to send instead; the codes stay the contract's. */
describe('Error messages a newcomer meets', () => {
  let t: TestApp;
  let tenant: TestTenant;

  beforeAll(async () => {
    t = await createTestApp();
    tenant = await createTenant(t);
  });
  afterAll(() => t.close());

  const token = () => tenant.auth.replace(/^Bearer /, '');

  it.each([
    ['a raw key', () => token()],
    ['the Token scheme', () => `Token ${token()}`],
    ['the Basic scheme', () => 'Basic dXNlcjpwYXNz'],
  ])('%s: 401 UNAUTHENTICATED saying to send Bearer', async (_name, authorization) => {
    const response = await t.http.get('/v1/customers').set('Authorization', authorization());
    expect(response.status).toBe(401);
    expect(response.body.error.code).toBe('UNAUTHENTICATED');
    expect(response.body.error.message).toMatch(/`Authorization: Bearer <token>`/);
  });

  it('a JSON syntax error: 400 MALFORMED_REQUEST with the position', async () => {
    const response = await t.http
      .post('/v1/customers')
      .set('Authorization', tenant.auth)
      .set('Idempotency-Key', idem())
      .set('Content-Type', 'application/json')
      .send('{"name": "Ada", "currency": "EUR",}');
    expect(response.status).toBe(400);
    expect(response.body.error.code).toBe('MALFORMED_REQUEST');
    expect(response.body.error.message).toMatch(/position 34 \(line 1, column 35\)/);
  });

  it('money as a number: 400 with the string form', async () => {
    const customer = await t.http
      .post('/v1/customers')
      .set('Authorization', tenant.auth)
      .set('Idempotency-Key', idem())
      .send({ name: 'Ada', currency: 'EUR' });
    expect(customer.status).toBe(201);
    const response = await t.http
      .post(`/v1/wallets/${customer.body.primary_wallet_id}/credit`)
      .set('Authorization', tenant.auth)
      .set('Idempotency-Key', idem())
      .send({ amount: 10.5, reference: `ref-${idem()}` });
    expect(response.status).toBe(400);
    const error = response.body.error.errors.find((e: { param: string }) => e.param === 'amount');
    expect(error.code).toBe('INVALID_TYPE');
    expect(error.message).toBe('amount must be a string, not a JSON number: amounts are decimal strings such as "10.50".');
  });

  it('a missing required field: "is required"', async () => {
    const response = await t.http
      .post('/v1/customers')
      .set('Authorization', tenant.auth)
      .set('Idempotency-Key', idem())
      .send({ name: 'Ada' });
    expect(response.status).toBe(400);
    // The code stays what it was (the field is validated as a string); only the message changes.
    expect(response.body.error.errors).toEqual([{ param: 'currency', code: 'INVALID_TYPE', message: 'currency is required.' }]);
    expect(response.body.error.message).toBe('currency is required.');
  });

  it('an unknown body field: the closest known name', async () => {
    const response = await t.http
      .post('/v1/customers')
      .set('Authorization', tenant.auth)
      .set('Idempotency-Key', idem())
      .send({ name: 'Ada', currency: 'EUR', externalId: 'x' });
    expect(response.status).toBe(400);
    expect(response.body.error.errors).toEqual([
      { param: 'externalId', code: 'UNKNOWN_PARAMETER', message: 'Unknown parameter: externalId. Did you mean external_id?' },
    ]);
  });

  it('an unknown query parameter: the closest known name', async () => {
    const response = await t.http.get('/v1/customers?limt=5').set('Authorization', tenant.auth);
    expect(response.status).toBe(400);
    expect(response.body.error.errors).toEqual([
      { param: 'limt', code: 'UNKNOWN_PARAMETER', message: 'Unknown parameter: limt. Did you mean limit?' },
    ]);
  });

  it('an unknown parameter far from any known name: no guess', async () => {
    const response = await t.http.get('/v1/customers?zzzzzz=5').set('Authorization', tenant.auth);
    expect(response.status).toBe(400);
    expect(response.body.error.errors[0].message).toBe('Unknown parameter: zzzzzz.');
  });
});

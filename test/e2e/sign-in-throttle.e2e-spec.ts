import { ManualClock } from '@app/shared-kernel';
import { expectError } from '../support/expectations';
import { createTenant, TestTenant } from '../support/tenants';
import { createTestApp, TestApp } from '../support/test-app';

// scrypt per attempt on a busy 2-core machine.
jest.setTimeout(60_000);

/**
 * Password guessing on POST /v1/sessions is throttled per account (organization + address typed)
 * and per client address, with a growing delay, answered 429 RATE_LIMITED with Retry-After, and
 * alike whether or not the account exists.
 */
describe('Sign-in throttle', () => {
  const clock = new ManualClock(new Date('2026-11-22T09:00:00.000Z'));
  let t: TestApp;
  let tenant: TestTenant;
  let address = 0;
  /** TRUST_PROXY: each test signs in from addresses of its own. */
  const nextAddress = () => `203.0.113.${(address += 1)}`;

  beforeAll(async () => {
    t = await createTestApp({ clock, env: { TRUST_PROXY: 'true' } });
    tenant = await createTenant(t, { withOwner: true });
  });
  afterAll(() => t.close());

  const signIn = (email: string, password: string, from = nextAddress()) =>
    t.http.post('/v1/sessions').set('X-Forwarded-For', from).send({ organization_id: tenant.organization_id, email, password });

  /** Status and Retry-After of each answer, for comparing two accounts' sequences. */
  const outline = (response: { status: number; headers: Record<string, string> }) =>
    `${response.status}${response.headers['retry-after'] ? ` retry-after=${response.headers['retry-after']}` : ''}`;

  async function guessSequence(email: string): Promise<string[]> {
    const seen: string[] = [];
    for (let i = 0; i < 5; i += 1) seen.push(outline(await signIn(email, `wrong password ${i}`)));
    const locked = await signIn(email, tenant.owner!.password);
    seen.push(outline(locked));
    expectError(locked, 429, 'rate_limit_error', 'RATE_LIMITED');
    expect(locked.body.error.details).toEqual({ retry_after_seconds: 1 });
    clock.advance(1_000);
    seen.push(outline(await signIn(email, 'wrong password 5')));
    seen.push(outline(await signIn(email, 'wrong password 6')));
    clock.advance(1_000);
    seen.push(outline(await signIn(email, 'wrong password 7')));
    clock.advance(2_000);
    seen.push(outline(await signIn(email, 'wrong password 8')));
    return seen;
  }

  it('delays guesses at one account more and more, even with the right password, and alike for an unknown address', async () => {
    const known = await guessSequence(tenant.owner!.email);
    expect(known).toEqual([
      '401',
      '401',
      '401',
      '401',
      '401',
      '429 retry-after=1',
      '401',
      '429 retry-after=2',
      '429 retry-after=1',
      '401',
    ]);
    expect(await guessSequence(`nobody-${tenant.organization_id}@example.com`)).toEqual(known);

    // Once the delay has passed, the right password signs in and clears the account's count.
    clock.advance(8_000);
    expect((await signIn(tenant.owner!.email, tenant.owner!.password)).status).toBe(201);
    for (let i = 0; i < 4; i += 1) expect((await signIn(tenant.owner!.email, `wrong again ${i}`)).status).toBe(401);
    clock.advance(60 * 60 * 1000);
  });

  it('counts parallel guesses each: no more than the free attempts get past the count', async () => {
    const email = `parallel-${tenant.organization_id}@example.com`;
    const answers = await Promise.all(Array.from({ length: 12 }, (_, i) => signIn(email, `parallel guess ${i}`)));
    const statuses = answers.map((response) => response.status).sort();
    expect(statuses).toEqual([...Array(5).fill(401), ...Array(7).fill(429)]);
    clock.advance(60 * 60 * 1000);
  });

  it('delays guesses from one address across accounts, and only that address', async () => {
    const from = nextAddress();
    for (let i = 0; i < 20; i += 1) {
      expectError(
        await signIn(`spray-${i}@example.com`, 'Winter2026!', from),
        401,
        'authentication_error',
        'INVALID_CREDENTIALS',
      );
    }
    const locked = await signIn('spray-20@example.com', 'Winter2026!', from);
    expectError(locked, 429, 'rate_limit_error', 'RATE_LIMITED');
    expect(locked.headers['retry-after']).toBe('1');
    // The owner, from another address, is not held up by the sprayer.
    expect((await signIn(tenant.owner!.email, tenant.owner!.password)).status).toBe(201);
    // An IPv6 client is its /64: another address of the same /64 is the same caller.
    const v6 = (host: number) => `2001:db8:5:6::${host.toString(16)}`;
    for (let i = 0; i < 20; i += 1) expect((await signIn(`v6-${i}@example.com`, 'Winter2026!', v6(i + 1))).status).toBe(401);
    expectError(await signIn('v6-20@example.com', 'Winter2026!', v6(999)), 429, 'rate_limit_error', 'RATE_LIMITED');
  });
});

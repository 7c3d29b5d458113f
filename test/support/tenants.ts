import { CommandBus } from '@nestjs/cqrs';
import { BootstrapOrganizationCommand, BootstrapResult } from '@app/identity';
import { randomBytes } from 'node:crypto';
import { DataSource } from 'typeorm';
import { TestApp } from './test-app';

export interface TestTenant extends BootstrapResult {
  /** The root key (sk_live, every scope). */
  rootKey: string;
  liveWorkspaceId: string;
  sandboxWorkspaceId: string;
  owner?: { email: string; password: string };
  /** `Authorization` header value for the root key. */
  auth: string;
  /** `Authorization` header value for the sandbox root key (sk_test, every scope). */
  sandboxAuth: string;
}

/** A fresh organization (live + sandbox workspaces, live and sandbox root keys, optional owner user). */
export async function createTenant(t: TestApp, options: { withOwner?: boolean } = {}): Promise<TestTenant> {
  const suffix = randomBytes(4).toString('hex');
  const owner = options.withOwner ? { email: `owner-${suffix}@example.com`, password: `correct horse ${suffix}` } : undefined;
  const result = await t.app.get(CommandBus).execute(new BootstrapOrganizationCommand(`Org ${suffix}`, owner));
  return {
    ...result,
    rootKey: result.api_key.secret,
    auth: `Bearer ${result.api_key.secret}`,
    sandboxAuth: `Bearer ${result.sandbox_api_key.secret}`,
    liveWorkspaceId: result.workspaces.find((workspace) => workspace.mode === 'live')!.id,
    sandboxWorkspaceId: result.workspaces.find((workspace) => workspace.mode === 'sandbox')!.id,
    owner,
  };
}

let counter = 0;
/** A unique Idempotency-Key. */
export function idem(): string {
  counter += 1;
  return `test-${process.pid}-${Date.now()}-${counter}`;
}

/** Creates an API key with the given scopes through the API; returns its secret and id. */
export async function createKey(
  t: TestApp,
  auth: string,
  body: Record<string, unknown>,
  headers: Record<string, string> = {},
): Promise<{ id: string; secret: string; body: any }> {
  const response = await t.http
    .post('/v1/api_keys')
    .set('Authorization', auth)
    .set('Idempotency-Key', idem())
    .set(headers)
    .send(body)
    .expect(201);
  return { id: response.body.id, secret: response.body.secret, body: response.body };
}

/**
 * Signs in as a user; returns the `Authorization` header value of the session. Sign-in names the
 * organization: without `organizationId`, the one organization holding the address in this
 * test's database is named.
 */
export async function signIn(t: TestApp, email: string, password: string, organizationId?: string): Promise<string> {
  const organizations: Array<{ organization_id: string }> =
    organizationId === undefined
      ? await t.app.get(DataSource).query('SELECT organization_id FROM users WHERE email = lower($1)', [email])
      : [{ organization_id: organizationId }];
  if (organizations.length !== 1) throw new Error(`${email} is in ${organizations.length} organizations: name one`);
  const response = await t.http
    .post('/v1/sessions')
    .send({ organization_id: organizations[0].organization_id, email, password })
    .expect(201);
  return `Bearer ${response.body.token}`;
}

import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { QueryBus } from '@nestjs/cqrs';
import { NestFactory } from '@nestjs/core';
import { ALL_SCOPES, AuthenticateRequestQuery } from '@app/identity';
import { Client } from 'pg';
import { AppModule } from '../../../apps/api/src/app.module';
import { cliErrorMessage, runCli } from '../../../apps/api/src/cli';
import { ConfigError, loadConfig } from '../../../apps/api/src/config/app-config';
import { createTestDatabase, TestDatabase } from '../../support/test-database';

// scrypt hashing and real PostgreSQL: the default 5 s is too tight on a busy 2-core machine.
jest.setTimeout(30_000);

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const APP_SECRET = 'bootstrap-cli-test-secret-0123456789abcdef';
const USAGE = /(^|\n)usage: npm run cli -- bootstrap --organization NAME \[--email E --password P\] \[--json\]$/;

/** `npm run cli -- bootstrap`, through runCli against a database of its own. */
describe('CLI bootstrap', () => {
  let database: TestDatabase;
  let sql: Client;
  let dataDir: string;

  beforeAll(async () => {
    database = await createTestDatabase();
    sql = new Client({ connectionString: database.url });
    await sql.connect();
    dataDir = mkdtempSync(join(tmpdir(), 'bootstrap-cli-'));
  });
  afterAll(async () => {
    await sql.end();
    await database.drop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  async function cli(args: string[]): Promise<{ stdout: string[]; stderr: string[] }> {
    const stdout: string[] = [];
    const stderr: string[] = [];
    await runCli(args, {
      env: { DATABASE_URL: database.url, APP_SECRET, DATA_DIR: dataDir },
      stdout: (text) => stdout.push(text),
      stderr: (text) => stderr.push(text),
    });
    return { stdout, stderr };
  }

  /** Runs a CLI call that must fail; returns the error and what it printed. */
  async function cliFailure(args: string[]): Promise<{ error: any; stdout: string[] }> {
    const stdout: string[] = [];
    const error = await runCli(args, {
      env: { DATABASE_URL: database.url, APP_SECRET, DATA_DIR: dataDir },
      stdout: (text) => stdout.push(text),
      stderr: () => undefined,
    }).then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    expect(error).toBeDefined();
    return { error, stdout };
  }

  async function organizationCount(): Promise<number> {
    const { rows } = await sql.query('SELECT count(*)::int AS count FROM organizations');
    return rows[0].count;
  }

  it('creates an organization, both workspaces, an owner and a live and a sandbox root key, and prints exactly one JSON line', async () => {
    const { stdout } = await cli([
      'bootstrap',
      '--organization',
      'Acme',
      '--email',
      'A@Example.com',
      '--password',
      'a long enough password',
      '--json',
    ]);
    expect(stdout).toHaveLength(1);
    expect(stdout[0].endsWith('\n')).toBe(true);
    expect(stdout[0].trimEnd().includes('\n')).toBe(false);
    const result = JSON.parse(stdout[0]);
    expect(result).toEqual({
      organization_id: expect.stringMatching(UUID),
      workspaces: [
        { id: expect.stringMatching(UUID), slug: 'live', mode: 'live' },
        { id: expect.stringMatching(UUID), slug: 'sandbox', mode: 'sandbox' },
      ],
      user_id: expect.stringMatching(UUID),
      api_key: { id: expect.stringMatching(UUID), secret: expect.stringMatching(/^sk_live_[0-9A-Za-z]{49}$/) },
      sandbox_api_key: { id: expect.stringMatching(UUID), secret: expect.stringMatching(/^sk_test_[0-9A-Za-z]{49}$/) },
    });

    const { rows: organizations } = await sql.query('SELECT id, name FROM organizations WHERE id = $1', [result.organization_id]);
    expect(organizations).toEqual([{ id: result.organization_id, name: 'Acme' }]);
    const { rows: workspaces } = await sql.query(
      'SELECT id, slug, mode, is_default FROM workspaces WHERE organization_id = $1 ORDER BY slug',
      [result.organization_id],
    );
    expect(workspaces).toEqual([
      { id: result.workspaces[0].id, slug: 'live', mode: 'live', is_default: true },
      { id: result.workspaces[1].id, slug: 'sandbox', mode: 'sandbox', is_default: true },
    ]);
    const { rows: users } = await sql.query('SELECT id, email, role, password_hash FROM users WHERE organization_id = $1', [
      result.organization_id,
    ]);
    expect(users).toEqual([
      { id: result.user_id, email: 'a@example.com', role: 'owner', password_hash: expect.stringMatching(/^scrypt\$/) },
    ]);
    expect(users[0].password_hash).not.toContain('a long enough password');

    // The keys are stored only as SHA-256 of the whole secret, with a 12-character display prefix.
    const secret: string = result.api_key.secret;
    const sandboxSecret: string = result.sandbox_api_key.secret;
    const { rows: keys } = await sql.query(
      `SELECT id, name, prefix, secret_hash, key_type, ARRAY(SELECT unnest(scopes) ORDER BY 1) AS scopes, revoked_at, expires_at
         FROM api_keys WHERE organization_id = $1 ORDER BY key_type`,
      [result.organization_id],
    );
    const rootKey = (id: string, name: string, keySecret: string, keyType: string) => ({
      id,
      name,
      prefix: keySecret.slice(0, 12),
      secret_hash: createHash('sha256').update(keySecret).digest(),
      key_type: keyType,
      scopes: [...ALL_SCOPES].sort(),
      revoked_at: null,
      expires_at: null,
    });
    expect(keys).toEqual([
      rootKey(result.api_key.id, 'Root key', secret, 'sk_live'),
      rootKey(result.sandbox_api_key.id, 'Sandbox root key', sandboxSecret, 'sk_test'),
    ]);
    for (const shown of [secret, sandboxSecret]) {
      const { rows: leaks } = await sql.query(
        `SELECT count(*)::int AS count FROM api_keys WHERE row_to_json(api_keys)::text LIKE '%' || $1 || '%'`,
        [shown.slice(12)],
      );
      expect(leaks[0].count).toBe(0);
    }
    const { rows: audit } = await sql.query(`SELECT action, principal_type, data FROM audit_events WHERE organization_id = $1`, [
      result.organization_id,
    ]);
    expect(audit).toEqual([
      {
        action: 'organization.bootstrapped',
        principal_type: 'system',
        data: { root_key_id: result.api_key.id, sandbox_root_key_id: result.sandbox_api_key.id },
      },
    ]);

    // The printed secret authenticates against an application on the same database.
    const app = await NestFactory.createApplicationContext(
      AppModule.forRoot({
        config: loadConfig({ LOG_LEVEL: 'silent', DATABASE_URL: database.url }),
        databaseUrl: database.url,
        appSecret: APP_SECRET,
      }),
      { logger: false },
    );
    try {
      const actor = await app.get(QueryBus).execute(new AuthenticateRequestQuery(`Bearer ${secret}`, '127.0.0.1', undefined));
      expect(actor).toEqual(
        expect.objectContaining({
          organizationId: result.organization_id,
          workspaceId: result.workspaces[0].id,
          workspaceMode: 'live',
          principal: expect.objectContaining({ type: 'api_key', id: result.api_key.id, human: false }),
        }),
      );
      expect([...actor.principal.scopes].sort()).toEqual([...ALL_SCOPES].sort());
      // The sandbox key reaches the sandbox workspace by default, with every scope too.
      const sandboxActor = await app
        .get(QueryBus)
        .execute(new AuthenticateRequestQuery(`Bearer ${sandboxSecret}`, '127.0.0.1', undefined));
      expect(sandboxActor).toEqual(
        expect.objectContaining({
          organizationId: result.organization_id,
          workspaceId: result.workspaces[1].id,
          workspaceMode: 'sandbox',
          principal: expect.objectContaining({ type: 'api_key', id: result.sandbox_api_key.id, human: false }),
        }),
      );
      expect([...sandboxActor.principal.scopes].sort()).toEqual([...ALL_SCOPES].sort());
      const tampered = `${secret.slice(0, -1)}${secret.endsWith('A') ? 'B' : 'A'}`;
      await expect(
        app.get(QueryBus).execute(new AuthenticateRequestQuery(`Bearer ${tampered}`, '127.0.0.1', undefined)),
      ).rejects.toMatchObject({ code: 'UNAUTHENTICATED' });
    } finally {
      await app.close();
    }
  });

  it('creates no user without --email and prints indented JSON without --json', async () => {
    const { stdout } = await cli(['bootstrap', '--organization', 'No owner']);
    expect(stdout).toHaveLength(1);
    expect(stdout[0].split('\n').length).toBeGreaterThan(3);
    const result = JSON.parse(stdout[0]);
    expect(result.user_id).toBeNull();
    const { rows } = await sql.query('SELECT count(*)::int AS count FROM users WHERE organization_id = $1', [
      result.organization_id,
    ]);
    expect(rows[0].count).toBe(0);
  });

  it.each([
    ['no command', ['--organization', 'Acme', '--json']],
    ['another command', ['frobnicate', '--organization', 'Acme']],
    ['a missing --organization', ['bootstrap', '--json']],
    ['an empty --organization', ['bootstrap', '--organization', '', '--json']],
    ['--email without --password', ['bootstrap', '--organization', 'Acme', '--email', 'b@example.com', '--json']],
    ['--password without --email', ['bootstrap', '--organization', 'Acme', '--password', 'a long enough password']],
    ['an unknown option', ['bootstrap', '--organization', 'Acme', '--colour', 'red']],
    ['a missing option value', ['bootstrap', '--organization']],
  ])('rejects %s with the usage message, printing and writing nothing', async (_case, args) => {
    const before = await organizationCount();
    const { error, stdout } = await cliFailure(args);
    expect(error).toBeInstanceOf(ConfigError);
    expect(cliErrorMessage(error)).toMatch(USAGE);
    expect(cliErrorMessage(error)).not.toMatch(/\n\s+at /);
    expect(stdout).toEqual([]);
    expect(await organizationCount()).toBe(before);
  });

  it('gives a new organization its own owner even when another organization uses the address (addresses are per organization)', async () => {
    const { stdout } = await cli([
      'bootstrap',
      '--organization',
      'Acme again',
      '--email',
      'a@example.com',
      '--password',
      'another long password',
      '--json',
    ]);
    const result = JSON.parse(stdout[0]);
    const { rows } = await sql.query(`SELECT organization_id, id FROM users WHERE email = 'a@example.com' ORDER BY created_at`);
    expect(rows).toHaveLength(2);
    expect(rows[1]).toEqual({ organization_id: result.organization_id, id: result.user_id });
    expect(rows[0].organization_id).not.toBe(result.organization_id);
  });

  it('rejects a short password or a malformed email with VALIDATION_ERROR and writes nothing', async () => {
    const before = await organizationCount();
    const short = await cliFailure(['bootstrap', '--organization', 'Short', '--email', 'c@example.com', '--password', 'short']);
    expect(short.error).toMatchObject({ code: 'VALIDATION_ERROR', param: 'password' });
    const malformed = await cliFailure([
      'bootstrap',
      '--organization',
      'Malformed',
      '--email',
      'not-an-email',
      '--password',
      'a long enough password',
    ]);
    expect(malformed.error).toMatchObject({ code: 'VALIDATION_ERROR', param: 'email' });
    expect(await organizationCount()).toBe(before);
  });

  it('refuses an invalid configuration with a message that hides the database URL', async () => {
    const stdout: string[] = [];
    const error = await runCli(['bootstrap', '--organization', 'Acme'], {
      env: { DATABASE_URL: 'mysql://root:hunter2@db/billing', APP_SECRET },
      stdout: (text) => stdout.push(text),
      stderr: () => undefined,
    }).then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    expect(error).toBeInstanceOf(ConfigError);
    expect(cliErrorMessage(error)).toMatch(/DATABASE_URL \(value hidden\)/);
    expect(cliErrorMessage(error)).not.toContain('hunter2');
    expect(stdout).toEqual([]);
  });
});

import { randomBytes, randomUUID } from 'node:crypto';
import { TransactionHost } from '@nestjs-cls/transactional';
import { DomainError, ManualClock } from '@app/shared-kernel';
import { ApiKey, ApiKeyState } from '../../../libs/identity/src/domain/api-key';
import { IpAllowlist } from '../../../libs/identity/src/domain/ip-allowlist';
import { CustomerVerification, VerificationState } from '../../../libs/identity/src/domain/customer-verification';
import { CustomerVerificationRepository } from '../../../libs/identity/src/domain/customer-verification.repository';
import { ApiKeyRepository, WorkspaceRepository } from '../../../libs/identity/src/domain/repositories';
import { WorkspaceState } from '../../../libs/identity/src/domain/workspace';
import { DataSource } from 'typeorm';
import { createKey, createTenant, idem, TestTenant } from '../../support/tenants';
import { createTestApp, TestApp } from '../../support/test-app';
import { seedVerification } from '../../support/verification-helpers';

/** A snapshot as plain data: an allowlist by its entries, a buffer by its hex. */
function plain(state: object): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(state).map(([field, value]) => [
      field,
      value instanceof IpAllowlist ? [...value.entries] : Buffer.isBuffer(value) ? value.toString('hex') : value,
    ]),
  );
}

/** The fields whose values differ between two snapshots. */
function differing(a: object, b: object): string[] {
  const left = plain(a);
  const right = plain(b);
  return Object.keys(left).filter((field) => JSON.stringify(left[field]) !== JSON.stringify(right[field]));
}

/**
 * Persistence that cannot forget state: each identity repository's save, then a fresh load, gives
 * back every field of the aggregate. The changed state touches every field the aggregate has but
 * its key (a field added later and not listed here fails the first expectation: list it, and make
 * the save write it). API keys and workspaces are version-checked, so a stale aggregate is refused,
 * never written; a verification's every writer locks it first (lock, lockByReference), so there
 * its lock serializes them.
 */
describe('Identity repositories round trip (PostgreSQL)', () => {
  const clock = new ManualClock(new Date('2027-03-01T09:00:00.000Z'));
  let t: TestApp;
  let tenant: TestTenant;
  let keys: ApiKeyRepository;
  let workspaces: WorkspaceRepository;
  const inTransaction = <T>(work: () => Promise<T>): Promise<T> => t.app.get(TransactionHost).withTransaction(work);

  beforeAll(async () => {
    t = await createTestApp({ clock });
    tenant = await createTenant(t);
    keys = t.app.get(ApiKeyRepository, { strict: false });
    workspaces = t.app.get(WorkspaceRepository, { strict: false });
  });
  afterAll(() => t.close());

  describe('API keys', () => {
    const load = (id: string) => inTransaction(() => keys.findForUpdate(tenant.organization_id, id)).then((key) => key!);

    it('saves every field but the key and the version, and loads them back', async () => {
      const { id } = await createKey(t, tenant.auth, { name: 'Round trip', scopes: ['costs:read'] });
      const before = (await load(id)).snapshot;
      const later = (minutes: number) => new Date(before.createdAt.getTime() + minutes * 60_000);
      const changed: ApiKeyState = {
        organizationId: before.organizationId,
        id: before.id,
        version: before.version,
        name: 'Round trip, every field',
        prefix: 'sk_test_rt42',
        secretHash: randomBytes(32),
        keyType: 'sk_test',
        scopes: ['customers:read', 'wallets:write'],
        allowedIps: IpAllowlist.parse(['10.0.0.0/8', '2001:db8::1']),
        expiresAt: later(600),
        lastUsedAt: later(5),
        revokedAt: later(30),
        revokesAt: later(60),
        rotatedFromId: randomUUID(),
        createdBy: { type: 'user', id: randomUUID() },
        createdAt: later(-60),
      };
      // Every field but the key changes here, and the version, which the next test moves.
      expect(differing(before, changed).sort()).toEqual(
        Object.keys(before)
          .filter((field) => !['organizationId', 'id', 'version'].includes(field))
          .sort(),
      );
      await inTransaction(() => keys.save(ApiKey.restore(changed)));
      expect(plain((await load(id)).snapshot)).toEqual(plain(changed));
    });

    it('writes one version past the loaded one, refuses a stale save, and never moves last_used_at back', async () => {
      const { id } = await createKey(t, tenant.auth, { name: 'Versioned', scopes: ['costs:read', 'wallets:read'] });
      const stale = await load(id);
      const minter = {
        type: 'system' as const,
        id: null,
        scopes: new Set(['costs:read', 'wallets:read']),
        keyTypes: new Set(['sk_live' as const, 'sk_test' as const]),
        expiresAt: null,
        allowedIps: IpAllowlist.parse([]),
      };
      await inTransaction(async () => {
        const key = (await keys.findForUpdate(tenant.organization_id, id))!;
        expect(key.update({ name: 'Renamed', scopes: ['costs:read'] }, minter, clock.now())).toEqual(['name', 'scopes']);
        await keys.save(key);
      });
      const saved = (await load(id)).snapshot;
      expect(saved).toMatchObject({ name: 'Renamed', scopes: ['costs:read'], version: stale.snapshot.version + 1 });

      stale.update({ name: 'Stale' }, minter, clock.now());
      const refused = await inTransaction(() => keys.save(stale)).catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(DomainError);
      expect(refused).toMatchObject({ kind: 'conflict', code: 'CONFLICT' });
      expect((await load(id)).snapshot.name).toBe('Renamed');

      const used = new Date(clock.now().getTime() + 1000);
      await t.app
        .get(DataSource)
        .query('UPDATE api_keys SET last_used_at = $3 WHERE organization_id = $1 AND id = $2', [
          tenant.organization_id,
          id,
          used,
        ]);
      const current = await inTransaction(async () => {
        const key = (await keys.findForUpdate(tenant.organization_id, id))!;
        const older = ApiKey.restore({ ...key.snapshot, lastUsedAt: new Date(used.getTime() - 60_000) });
        await keys.save(older);
        return keys.findForUpdate(tenant.organization_id, id);
      });
      expect(current!.snapshot.lastUsedAt).toEqual(used);
    });
  });

  describe('workspaces', () => {
    const load = (id: string) => inTransaction(() => workspaces.findForUpdate(tenant.organization_id, id)).then((w) => w!);
    /** What a workspace's life never changes: its key, slug, mode, default flag and creation. */
    const IMMUTABLE: (keyof WorkspaceState)[] = ['organizationId', 'id', 'slug', 'mode', 'isDefault', 'createdAt'];

    it('saves every field its life changes (the rest never change) and loads them back', async () => {
      const before = (await load(tenant.liveWorkspaceId)).snapshot;
      clock.advance(60_000);
      const saved = await inTransaction(async () => {
        const workspace = (await workspaces.findForUpdate(tenant.organization_id, tenant.liveWorkspaceId))!;
        workspace.update({ name: 'Round trip', settings: { approval_required_for: ['wallet.adjust'] } }, clock.now());
        await workspaces.save(workspace);
        return workspace.snapshot;
      });
      expect(differing(before, saved).sort()).toEqual(
        Object.keys(before)
          .filter((field) => !IMMUTABLE.includes(field as keyof WorkspaceState))
          .sort(),
      );
      expect(plain((await load(tenant.liveWorkspaceId)).snapshot)).toEqual(plain(saved));
    });

    it('refuses a stale save', async () => {
      const stale = await load(tenant.sandboxWorkspaceId);
      await inTransaction(async () => {
        const workspace = (await workspaces.findForUpdate(tenant.organization_id, tenant.sandboxWorkspaceId))!;
        workspace.update({ name: 'First' }, clock.now());
        await workspaces.save(workspace);
      });
      stale.update({ name: 'Second' }, clock.now());
      await expect(inTransaction(() => workspaces.save(stale))).rejects.toMatchObject({ kind: 'conflict', code: 'CONFLICT' });
      expect((await load(tenant.sandboxWorkspaceId)).snapshot).toMatchObject({ name: 'First', version: stale.storedVersion + 1 });
    });
  });

  describe('customer verifications', () => {
    /** What a verification's life never changes: its key, customer, type, provider and reference, its creation. */
    const IMMUTABLE: (keyof VerificationState)[] = [
      'organizationId',
      'workspaceId',
      'id',
      'customerId',
      'verificationType',
      'provider',
      'providerReference',
      'createdAt',
    ];

    it('saves every field its life changes (over two states the schema allows) and loads them back', async () => {
      const customer = await t.http
        .post('/v1/customers')
        .set('Authorization', tenant.auth)
        .set('Idempotency-Key', idem())
        .send({ name: 'Verified GmbH', currency: 'EUR' })
        .expect(201);
      const id = await seedVerification(t, tenant, tenant.liveWorkspaceId, customer.body.id);
      const key = { organizationId: tenant.organization_id, workspaceId: tenant.liveWorkspaceId, verificationId: id };
      const repository = t.app.get(CustomerVerificationRepository, { strict: false });
      const load = () => inTransaction(() => repository.lock(key)).then((verification) => verification!.snapshot);
      const before = await load();
      const at = (minutes: number) => new Date(before.createdAt.getTime() + minutes * 60_000);
      // In maintenance a retry is due (never completed); verified, it is completed (no retry due).
      const maintenance: VerificationState = {
        ...before,
        status: 'maintenance',
        providerResult: '{"status":"unavailable","attempt":2}',
        lastEventAt: at(1),
        retryCount: 2,
        nextRetryAt: at(30),
        updatedAt: at(2),
        expiresAt: at(60 * 24),
      };
      const verified: VerificationState = {
        ...maintenance,
        status: 'verified',
        providerResult: '{"status":"approved"}',
        lastEventAt: at(40),
        nextRetryAt: null,
        updatedAt: at(41),
        completedAt: at(41),
        expiresAt: at(60 * 24 * 365),
      };
      const changed = new Set<string>();
      for (const state of [maintenance, verified]) {
        for (const field of differing(await load(), state)) changed.add(field);
        await inTransaction(() => repository.update(CustomerVerification.restore(state)));
        expect(plain(await load())).toEqual(plain(state));
      }
      expect([...changed].sort()).toEqual(
        Object.keys(before)
          .filter((field) => !IMMUTABLE.includes(field as keyof VerificationState))
          .sort(),
      );
    });
  });
});

import { ApiKey, grantableKeyTypes, KeyType, Minter, UNLIMITED_MINTER } from './api-key';
import { IpAllowlist } from './ip-allowlist';

const NOW = new Date('2026-11-24T12:00:00Z');

function minter(mode: 'live' | 'sandbox', scopes: string[] = ['costs:read', 'api_keys:write']): Minter {
  return { type: 'api_key', id: 'minter', scopes: new Set(scopes), keyTypes: grantableKeyTypes(mode), ...UNLIMITED_MINTER };
}

function mint(keyType: KeyType, by: Minter, scopes: string[] = ['costs:read']) {
  return ApiKey.mint({ organizationId: 'org', name: 'k', scopes, keyType, minter: by, now: NOW });
}

describe('ApiKey key types', () => {
  it('lets a live principal mint either type', () => {
    expect(mint('sk_live', minter('live')).secret).toMatch(/^sk_live_/);
    expect(mint('sk_test', minter('live')).key.snapshot.keyType).toBe('sk_test');
  });

  it('never gives a sk_test key from a live minter a scope the minter lacks', () => {
    expect(() => mint('sk_test', minter('live', ['costs:read']), ['costs:read', 'wallets:write'])).toThrow(
      expect.objectContaining({ code: 'SCOPE_NOT_GRANTABLE' }),
    );
  });

  it('refuses a sandbox principal a sk_live key, by minting or by rotating', () => {
    expect(() => mint('sk_live', minter('sandbox'))).toThrow(
      expect.objectContaining({ code: 'KEY_TYPE_NOT_GRANTABLE', kind: 'forbidden', param: 'key_type' }),
    );
    const { key } = mint('sk_live', minter('live'));
    expect(() => key.rotate(minter('sandbox'), NOW)).toThrow(
      expect.objectContaining({ code: 'KEY_TYPE_NOT_GRANTABLE', param: 'id' }),
    );
    expect(key.snapshot.revokesAt).toBeNull();
  });

  it('keeps the type on rotation, whoever may rotate it', () => {
    const { key } = mint('sk_test', minter('live'));
    for (const mode of ['live', 'sandbox'] as const) {
      const { successor, secret } = key.rotate(minter(mode), NOW);
      expect(successor.snapshot.keyType).toBe('sk_test');
      expect(secret).toMatch(/^sk_test_/);
    }
  });
});

describe('ApiKey limits inherited from the minter', () => {
  const expiry = new Date(NOW.getTime() + 90_000);
  const limited: Minter = { ...minter('live'), expiresAt: expiry, allowedIps: IpAllowlist.parse(['127.0.0.1', '10.0.0.0/8']) };

  function mintWith(by: Minter, fields: { expiresAt?: Date | null; allowedIps?: unknown }) {
    return ApiKey.mint({
      organizationId: 'org',
      name: 'child',
      scopes: ['costs:read'],
      keyType: 'sk_live',
      minter: by,
      now: NOW,
      ...fields,
    });
  }

  it('inherits the minter’s expiry and addresses when they are omitted', () => {
    const { key } = mintWith(limited, {});
    expect(key.snapshot.expiresAt).toEqual(expiry);
    expect(key.snapshot.allowedIps.entries).toEqual(['127.0.0.1', '10.0.0.0/8']);
  });

  it('accepts an earlier expiry and a narrower network', () => {
    const earlier = new Date(NOW.getTime() + 60_000);
    const { key } = mintWith(limited, { expiresAt: earlier, allowedIps: ['10.1.2.0/24', '127.0.0.1'] });
    expect(key.snapshot.expiresAt).toEqual(earlier);
    expect(key.snapshot.allowedIps.entries).toEqual(['10.1.2.0/24', '127.0.0.1']);
  });

  it('refuses a later expiry with EXPIRY_NOT_GRANTABLE', () => {
    expect(() => mintWith(limited, { expiresAt: new Date(expiry.getTime() + 1) })).toThrow(
      expect.objectContaining({ code: 'EXPIRY_NOT_GRANTABLE', kind: 'forbidden', param: 'expires_at' }),
    );
  });

  it.each([[[]], [['0.0.0.0/0']], [['10.0.0.0/7']], [['127.0.0.2']], [['::1']], [['127.0.0.1', '192.168.0.1']]])(
    'refuses the wider network %j with IP_RANGE_NOT_GRANTABLE',
    (allowedIps) => {
      expect(() => mintWith(limited, { allowedIps })).toThrow(
        expect.objectContaining({ code: 'IP_RANGE_NOT_GRANTABLE', kind: 'forbidden', param: 'allowed_ips' }),
      );
    },
  );

  it('leaves an unlimited minter’s child unlimited unless asked', () => {
    const { key } = mintWith(minter('live'), {});
    expect(key.snapshot.expiresAt).toBeNull();
    expect(key.snapshot.allowedIps.unrestricted).toBe(true);
  });
});

describe('ApiKey update (merge-patch)', () => {
  const wide = minter('live', ['costs:read', 'wallets:read', 'api_keys:write']);

  function wideKey() {
    return mint('sk_live', wide, ['costs:read', 'wallets:read']).key;
  }

  it('renames, narrows and restricts in one change, one version later, and names what changed', () => {
    const key = wideKey();
    const changed = key.update({ name: '  Renamed ', scopes: ['wallets:read'], allowedIps: ['10.0.0.0/8'] }, wide, NOW);
    expect(changed).toEqual(['name', 'scopes', 'allowed_ips']);
    expect(key.snapshot).toMatchObject({ name: 'Renamed', scopes: ['wallets:read'], version: key.storedVersion + 1 });
    expect(key.snapshot.allowedIps.entries).toEqual(['10.0.0.0/8']);
    // A second change in the same unit of work is still one version past the stored one.
    key.update({ name: 'Again' }, wide, NOW);
    expect(key.snapshot.version).toBe(key.storedVersion + 1);
  });

  it('leaves absent and null fields, and a patch restating the key changes nothing', () => {
    const key = wideKey();
    const before = key.snapshot;
    expect(key.update({ name: null, scopes: undefined, allowedIps: null }, wide, NOW)).toEqual([]);
    expect(key.update({ name: 'k', scopes: ['wallets:read', 'costs:read', 'costs:read'], allowedIps: [] }, wide, NOW)).toEqual(
      [],
    );
    expect(key.snapshot).toBe(before);
  });

  it('refuses what create refuses: a scope the caller lacks, addresses beyond its own, bad values', () => {
    const key = wideKey();
    const before = key.snapshot;
    expect(() => key.update({ scopes: ['costs:read', 'wallets:write'] }, wide, NOW)).toThrow(
      expect.objectContaining({ code: 'SCOPE_NOT_GRANTABLE', kind: 'forbidden', details: { not_grantable: ['wallets:write'] } }),
    );
    const fenced: Minter = { ...wide, allowedIps: IpAllowlist.parse(['10.0.0.0/8']) };
    for (const allowedIps of [[], ['192.168.0.1']]) {
      expect(() => key.update({ allowedIps }, fenced, NOW)).toThrow(expect.objectContaining({ code: 'IP_RANGE_NOT_GRANTABLE' }));
    }
    const invalid = (param: string, code: string) =>
      expect.objectContaining({ code: 'VALIDATION_ERROR', param, errors: [expect.objectContaining({ param, code })] });
    expect(() => key.update({ scopes: [] }, wide, NOW)).toThrow(invalid('scopes', 'REQUIRED'));
    expect(() => key.update({ scopes: ['nope'] }, wide, NOW)).toThrow(invalid('scopes[0]', 'INVALID_SCOPE'));
    expect(() => key.update({ name: ' ' }, wide, NOW)).toThrow(invalid('name', 'OUT_OF_RANGE'));
    expect(() => key.update({ allowedIps: ['not an address'] }, wide, NOW)).toThrow(invalid('allowed_ips[0]', 'INVALID_IP'));
    expect(key.snapshot).toBe(before);
  });

  it('needs every scope the key holds now, as rotate and revoke do, and an active key', () => {
    const key = wideKey();
    expect(() => key.update({ scopes: ['costs:read'] }, minter('live', ['costs:read', 'api_keys:write']), NOW)).toThrow(
      expect.objectContaining({ code: 'SCOPE_NOT_GRANTABLE', details: { not_grantable: ['wallets:read'] } }),
    );
    key.revoke(wide, NOW);
    expect(() => key.update({ name: 'Late' }, wide, NOW)).toThrow(
      expect.objectContaining({ code: 'API_KEY_NOT_ACTIVE', kind: 'conflict', details: { status: 'revoked' } }),
    );
  });
});

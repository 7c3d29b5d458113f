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

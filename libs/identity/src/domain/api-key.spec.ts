import { ApiKey, grantableKeyTypes, KeyType, Minter } from './api-key';

const NOW = new Date('2026-11-24T12:00:00Z');

function minter(mode: 'live' | 'sandbox', scopes: string[] = ['costs:read', 'api_keys:write']): Minter {
  return { type: 'api_key', id: 'minter', scopes: new Set(scopes), keyTypes: grantableKeyTypes(mode) };
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

import { rootKeyBanner } from './root-key-banner';

describe('rootKeyBanner', () => {
  const result = {
    organization_id: '0193a5c2-7f4e-7b1a-9c1d-2f0e4b5a6c70',
    workspaces: [
      { id: '0193a5c2-7f4e-7b1a-9c1d-2f0e4b5a6c71', slug: 'live', mode: 'live' as const },
      { id: '0193a5c2-7f4e-7b1a-9c1d-2f0e4b5a6c72', slug: 'sandbox', mode: 'sandbox' as const },
    ],
    user_id: null,
    api_key: { id: '0193a5c2-7f4e-7b1a-9c1d-2f0e4b5a6c73', secret: 'sk_live_LIVESECRET' },
    sandbox_api_key: { id: '0193a5c2-7f4e-7b1a-9c1d-2f0e4b5a6c74', secret: 'sk_test_SANDBOXSECRET' },
  };

  it('shows the live and the sandbox root key, each on a labelled line', () => {
    const lines = rootKeyBanner(result, 'http://127.0.0.1:3000').split('\n');
    expect(lines).toContain('    live:     sk_live_LIVESECRET');
    expect(lines).toContain('    sandbox:  sk_test_SANDBOXSECRET');
    expect(lines.filter((line) => line.includes('LIVESECRET'))).toHaveLength(1);
  });

  it('ends with a command that works as printed: the sandbox key on a route it may read, on the real address', () => {
    const banner = rootKeyBanner(result, 'http://127.0.0.1:3417');
    expect(banner).toContain('  Try: curl -H "Authorization: Bearer sk_test_SANDBOXSECRET" http://127.0.0.1:3417/v1/customers');
    expect(banner).toContain('open http://127.0.0.1:3417/docs');
    expect(banner).not.toContain('<');
  });

  it('names the organization and both workspaces', () => {
    const banner = rootKeyBanner(result, 'http://127.0.0.1:3000');
    expect(banner).toContain(result.organization_id);
    expect(banner).toContain(`live (${result.workspaces[0].id}), sandbox (${result.workspaces[1].id})`);
  });
});

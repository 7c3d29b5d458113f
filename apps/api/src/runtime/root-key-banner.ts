import type { BootstrapResult } from '@app/identity';

/**
 * The first start's banner: the only time the root keys' secrets are shown (the database keeps
 * their hashes alone). A live key and a sandbox key, as Stripe hands out both at once.
 */
export function rootKeyBanner(result: BootstrapResult, baseUrl: string): string {
  const rule = '='.repeat(78);
  return [
    '',
    rule,
    '  First start: a default organization was created.',
    `  Organization: ${result.organization_id}`,
    `  Workspaces:   ${result.workspaces.map((workspace) => `${workspace.slug} (${workspace.id})`).join(', ')}`,
    '',
    '  Root API keys (every scope) — shown ONCE, store them now:',
    `    live:     ${result.api_key.secret}`,
    `    sandbox:  ${result.sandbox_api_key.secret}`,
    '',
    '  The sandbox key works on test data only: test cards (pm_card_visa, pm_card_declined)',
    '  and the test helpers (POST /v1/test_helpers/top_ups/{id}/succeed).',
    `  Try: curl -H "Authorization: Bearer ${result.sandbox_api_key.secret}" ${baseUrl}/v1/customers`,
    `  or open ${baseUrl}/docs, click Authorize and paste a key.`,
    rule,
    '',
  ].join('\n');
}

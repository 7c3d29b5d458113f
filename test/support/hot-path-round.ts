import { WalletClient } from './wallet-helpers';

/** The body of a request that must have succeeded (the status and body otherwise, in the failure). */
export async function ok(response: Promise<{ status: number; body: any }>): Promise<any> {
  const { status, body } = await response;
  expect(status < 300 ? 'ok' : `${status} ${JSON.stringify(body)}`).toBe('ok');
  return body;
}

/**
 * One round of the money path's hot requests on a wallet (`hot`, USD, funded): a debit and its
 * replay, a transfer to `other`, a hold placed and released, the wallet read by a key and by a
 * session, and its ledger page. Shared by the suites that inspect what these statements cost.
 */
export async function walletHotPathRound(
  api: WalletClient,
  session: WalletClient,
  wallets: { hot: string; other: string },
  label: string,
): Promise<void> {
  const { hot, other } = wallets;
  const debit = { amount: '0.01', source: 'INVOICE', reference: label };
  await ok(api.post(`/v1/wallets/${hot}/debit`, debit, `${label}-debit`));
  await ok(api.post(`/v1/wallets/${hot}/debit`, debit, `${label}-debit`));
  await ok(api.post(`/v1/wallets/${hot}/transfer`, { amount: { value: '0.01', currency: 'USD' }, target_wallet_id: other }));
  const hold = await ok(api.post(`/v1/wallets/${hot}/holds`, { amount: '0.01' }));
  await ok(api.post(`/v1/wallets/${hot}/holds/${hold.id}/release`, {}));
  await ok(api.get(`/v1/wallets/${hot}`));
  await ok(session.get(`/v1/wallets/${hot}`));
  await ok(api.get(`/v1/wallets/${hot}/transactions?limit=10`));
}

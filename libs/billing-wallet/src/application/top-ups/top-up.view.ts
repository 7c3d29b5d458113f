/** A top-up as the API shows it (POST /v1/wallets/{id}/top_ups and the sandbox settle helper answer it). */
export interface TopUpView {
  id: string;
  walletId: string;
  mode: 'hosted_checkout' | 'off_session';
  automatic: boolean;
  amount: string;
  currency: string;
  status: 'pending' | 'succeeded' | 'failed';
  paymentMethodId: string | null;
  checkoutUrl: string | null;
  failureCode: string | null;
  failureMessage: string | null;
  transactionId: string | null;
  createdAt: Date;
  completedAt: Date | null;
}

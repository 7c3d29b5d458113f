import { DomainError } from '@app/shared-kernel';
import { PaymentProvider } from '../domain/payment-provider';
import { WalletErrors } from '../domain/wallet-errors';

export type WorkspaceMode = 'live' | 'sandbox';

export function paymentProviderNotConfigured(): DomainError {
  return WalletErrors.PAYMENT_PROVIDER_NOT_CONFIGURED.create(
    'No payment provider is configured for live workspaces; live payments are refused until one is bound.',
  );
}

/**
 * Which adapter serves a workspace. Sandbox workspaces always use the sandbox adapter. Live
 * workspaces use the real provider bound in billing-wallet.module.ts; without one, the sandbox
 * adapter stands in in development only, and anywhere else (NODE_ENV production or test) every
 * live payment is refused with 503 PAYMENT_PROVIDER_NOT_CONFIGURED: test cards never pay for real.
 */
export class PaymentProviders {
  constructor(
    private readonly sandbox: PaymentProvider,
    private readonly environment: 'development' | 'test' | 'production',
    private readonly live?: PaymentProvider,
  ) {}

  forWorkspace(mode: WorkspaceMode): PaymentProvider {
    if (mode === 'sandbox') return this.sandbox;
    if (this.live) return this.live;
    if (this.environment === 'development') return this.sandbox;
    throw paymentProviderNotConfigured();
  }

  /** The adapter whose webhooks arrive at POST /v1/webhooks/payments/{name}. */
  named(name: string): PaymentProvider | undefined {
    return [this.live, this.sandbox].find((provider) => provider?.name === name);
  }
}

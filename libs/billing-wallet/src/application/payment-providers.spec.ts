import { DomainError } from '@app/shared-kernel';
import { PaymentProvider } from '../domain/payment-provider';
import { PaymentProviders } from './payment-providers';

/** Only the name matters to the selection. */
function provider(name: string): PaymentProvider {
  return { name } as PaymentProvider;
}

function refusal(action: () => unknown): { kind: string; code: string } | undefined {
  try {
    action();
  } catch (error) {
    return { kind: (error as DomainError).kind, code: (error as DomainError).code };
  }
  return undefined;
}

describe('PaymentProviders', () => {
  const sandbox = provider('sandbox');
  const stripe = provider('stripe');

  it('serves sandbox workspaces with the sandbox adapter, whatever the environment and binding', () => {
    for (const environment of ['development', 'test', 'production'] as const) {
      expect(new PaymentProviders(sandbox, environment).forWorkspace('sandbox')).toBe(sandbox);
      expect(new PaymentProviders(sandbox, environment, stripe).forWorkspace('sandbox')).toBe(sandbox);
    }
  });

  it('serves live workspaces with the bound real provider', () => {
    for (const environment of ['development', 'test', 'production'] as const) {
      expect(new PaymentProviders(sandbox, environment, stripe).forWorkspace('live')).toBe(stripe);
    }
  });

  it('lets the sandbox stand in for a missing real provider in development only', () => {
    expect(new PaymentProviders(sandbox, 'development').forWorkspace('live')).toBe(sandbox);
    for (const environment of ['test', 'production'] as const) {
      expect(refusal(() => new PaymentProviders(sandbox, environment).forWorkspace('live'))).toEqual({
        kind: 'unavailable',
        code: 'PAYMENT_PROVIDER_NOT_CONFIGURED',
      });
    }
  });

  it('finds the adapter a webhook names', () => {
    const providers = new PaymentProviders(sandbox, 'production', stripe);
    expect(providers.named('stripe')).toBe(stripe);
    expect(providers.named('sandbox')).toBe(sandbox);
    expect(providers.named('adyen')).toBeUndefined();
    expect(new PaymentProviders(sandbox, 'production').named('stripe')).toBeUndefined();
  });
});

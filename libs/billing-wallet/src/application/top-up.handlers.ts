import { Transactional, TransactionHost } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { Injectable, OnModuleInit } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import {
  AuditLog,
  Clock,
  DomainError,
  invalidParameter,
  JobQueue,
  JobTenant,
  jobTenantOf,
  Money,
  newId,
  workspaceModeOf,
} from '@app/shared-kernel';
import { PaymentEvent, PaymentProvider } from '../domain/payment-provider';
import { Wallet } from '../domain/wallet';
import { WalletKey, WalletRepository } from '../domain/wallet.repository';
import { PaymentMethodStore } from './payment-method.store';
import { SandboxPaymentProvider } from '../infrastructure/sandbox-payment-provider';
import { StoredTopUp, TopUpStore } from './top-up.store';
import { assertPaymentMethodOf } from './payment-method-reference';
import { PaymentProviders } from './payment-providers';
import { failureOf, TopUpSettlement } from './top-up-settlement';
import {
  AttachPaymentMethodCommand,
  CreateTopUpCommand,
  PaymentMethodView,
  ProcessPaymentWebhookCommand,
  SettleSandboxTopUpCommand,
  TopUpView,
} from './top-up.commands';
import { keyOf, walletNotFound } from './wallet-keys';
import { topUpResponse } from './transaction-response';
import { WalletEvents } from './wallet-events';
import { assertCustomerVisible } from './visibility';

export const AUTO_TOP_UP_JOB = 'wallets.auto-top-up';

@CommandHandler(AttachPaymentMethodCommand)
export class AttachPaymentMethodHandler implements ICommandHandler<AttachPaymentMethodCommand> {
  constructor(
    private readonly providers: PaymentProviders,
    private readonly paymentMethods: PaymentMethodStore,
    private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>,
    private readonly audit: AuditLog,
    private readonly clock: Clock,
  ) {}

  @Transactional()
  async execute({ actor, customerId, token }: AttachPaymentMethodCommand): Promise<PaymentMethodView> {
    await assertCustomerVisible(this.txHost.tx, actor, customerId, 'id');
    const provider = this.providers.forWorkspace(actor.workspaceMode);
    const method = await provider.attachPaymentMethod(token);
    const view = { ...method, customerId, provider: provider.name, createdAt: this.clock.now() };
    await this.paymentMethods.insert(actor, view);
    await this.audit.record(actor, {
      action: 'payment_method.attached',
      resourceType: 'payment_method',
      resourceId: view.id,
      data: { customer_id: customerId },
    });
    return view;
  }
}

@CommandHandler(CreateTopUpCommand)
export class CreateTopUpHandler implements ICommandHandler<CreateTopUpCommand> {
  constructor(
    private readonly wallets: WalletRepository,
    private readonly topUps: TopUpStore,
    private readonly settlement: TopUpSettlement,
    private readonly providers: PaymentProviders,
    private readonly paymentMethods: PaymentMethodStore,
    private readonly audit: AuditLog,
    private readonly clock: Clock,
    private readonly events: WalletEvents,
  ) {}

  /** Everything that can refuse comes before money moves: the wallet, the amount, its limits, the method, the provider. */
  @Transactional()
  async execute({ actor, walletId, input }: CreateTopUpCommand): Promise<TopUpView> {
    const mode = input.mode ?? 'hosted_checkout';
    if (mode !== 'hosted_checkout' && mode !== 'off_session') {
      throw invalidParameter('mode', 'INVALID_VALUE', 'mode must be hosted_checkout or off_session.');
    }
    const key = keyOf(actor, walletId);
    const wallet = await this.wallets.lock(key);
    if (!wallet) throw walletNotFound();
    const amount = this.amountOf(input.amount, wallet);
    wallet.assertCreditAllowed(amount);
    let paymentMethodId: string | null = null;
    if (mode === 'off_session') {
      if (!input.paymentMethodId)
        throw invalidParameter('payment_method_id', 'REQUIRED', 'payment_method_id is required for off_session top-ups.');
      await assertPaymentMethodOf(this.paymentMethods, wallet.snapshot, input.paymentMethodId, 'payment_method_id');
      paymentMethodId = input.paymentMethodId;
    }
    const provider = this.providers.forWorkspace(actor.workspaceMode);
    const id = newId();
    const checkout = mode === 'hosted_checkout' ? await provider.openCheckout(id, amount) : undefined;
    const topUp = (await this.topUps.insert(key, {
      id,
      mode,
      automatic: false,
      amount,
      paymentMethodId,
      provider: provider.name,
      providerReference: checkout?.providerReference ?? null,
      checkoutUrl: checkout?.checkoutUrl ?? null,
      now: this.clock.now(),
    }))!;
    await this.audit.record(actor, {
      action: 'wallet_top_up.created',
      resourceType: 'wallet_top_up',
      resourceId: id,
      data: { wallet_id: walletId, mode },
    });
    await this.events.publish(actor, [{ type: 'wallet.top_up.created', object: topUpResponse(topUp.view) }]);
    if (!paymentMethodId) return topUp.view;
    const charge = await provider.chargeOffSession(id, amount, paymentMethodId);
    if (charge.status === 'failed') {
      throw new DomainError('payment_declined', 'PAYMENT_FAILED', charge.failureMessage, {
        details: { failure_code: charge.failureCode },
      });
    }
    return (await this.settlement.succeed(topUp, { provider, reference: charge.providerReference })).view;
  }

  private amountOf(value: string | undefined, wallet: Wallet): Money {
    if (value !== undefined) {
      const amount = Money.parse(value, wallet.snapshot.currency, 'amount');
      if (!amount.isPositive()) throw invalidParameter('amount', 'OUT_OF_RANGE', 'amount must be greater than zero.');
      return amount;
    }
    const fallback = wallet.snapshot.autoTopup.amount;
    if (!fallback) throw invalidParameter('amount', 'REQUIRED', 'amount is required when the wallet has no auto_topup_amount.');
    return fallback;
  }
}

@CommandHandler(ProcessPaymentWebhookCommand)
export class ProcessPaymentWebhookHandler implements ICommandHandler<ProcessPaymentWebhookCommand> {
  constructor(
    private readonly providers: PaymentProviders,
    private readonly topUps: TopUpStore,
    private readonly settlement: TopUpSettlement,
    private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>,
    private readonly clock: Clock,
  ) {}

  /**
   * Verified before anything is stored; the (provider, event id) key makes redelivery a no-op.
   * A verified event is always acknowledged: the top-up it names reaches a terminal state
   * (credited, or failed and refunded), so the provider has nothing left to retry.
   */
  @Transactional()
  async execute({ provider: name, rawBody, signature }: ProcessPaymentWebhookCommand): Promise<{ duplicate: boolean }> {
    const provider = this.providers.named(name);
    if (!provider) throw new DomainError('not_found', 'UNKNOWN_PROVIDER', `No payment provider named ${name}.`);
    const event: PaymentEvent = provider.verifyWebhook(rawBody, signature);
    const inserted = await this.txHost.tx.query(
      `INSERT INTO payment_webhook_events (provider, event_id, type, payload, received_at) VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT DO NOTHING RETURNING event_id`,
      [name, event.id, event.type, rawBody, this.clock.now()],
    );
    if (inserted.length === 0) return { duplicate: true };
    const topUp = await this.topUps.lock(event.topUpId);
    if (!topUp) return { duplicate: false };
    if (event.type === 'top_up.succeeded') await this.settlement.succeed(topUp, { provider, reference: event.providerReference });
    else {
      await this.settlement.fail(topUp, {
        providerReference: event.providerReference,
        failureCode: event.failureCode ?? 'payment_failed',
        failureMessage: event.failureMessage ?? 'The payment failed.',
      });
    }
    return { duplicate: false };
  }
}

@CommandHandler(SettleSandboxTopUpCommand)
export class SettleSandboxTopUpHandler implements ICommandHandler<SettleSandboxTopUpCommand> {
  constructor(
    private readonly sandbox: SandboxPaymentProvider,
    private readonly topUps: TopUpStore,
    private readonly webhooks: ProcessPaymentWebhookHandler,
  ) {}

  /** Sandbox workspaces only: the provider reports, through its signed webhook, what the test asks. */
  @Transactional()
  async execute({ actor, topUpId, outcome }: SettleSandboxTopUpCommand): Promise<TopUpView> {
    if (actor.workspaceMode !== 'sandbox') {
      throw new DomainError('forbidden', 'SANDBOX_ONLY', 'Test helpers work in sandbox workspaces only.');
    }
    const topUp = await this.topUps.lock(topUpId, actor);
    if (!topUp) throw new DomainError('not_found', 'TOP_UP_NOT_FOUND', 'No such top-up.', { param: 'id' });
    if (topUp.view.status !== 'pending') {
      throw new DomainError('conflict', 'INVALID_STATUS_TRANSITION', `This top-up is already ${topUp.view.status}.`, {
        details: { from: topUp.view.status, to: outcome === 'succeed' ? 'succeeded' : 'failed', allowed: [] },
      });
    }
    const { body, signature } = this.sandbox.signedEvent({
      id: `evt_${newId()}`,
      type: outcome === 'succeed' ? 'top_up.succeeded' : 'top_up.failed',
      topUpId,
      providerReference: `ch_sandbox_${topUpId}`,
      failureCode: outcome === 'fail' ? 'card_declined' : undefined,
      failureMessage: outcome === 'fail' ? 'Your card was declined.' : undefined,
    });
    await this.webhooks.execute(new ProcessPaymentWebhookCommand(this.sandbox.name, body, signature));
    return (await this.topUps.lock(topUpId, actor))!.view;
  }
}

/**
 * Starts one automatic top-up when an operation takes the available balance from at or above
 * `low_balance_threshold` to below it; none while one is pending (a partial unique index). The
 * charge runs off-session through the job queue, after this transaction commits.
 */
@Injectable()
export class AutoTopUp implements OnModuleInit {
  constructor(
    private readonly jobs: JobQueue,
    private readonly wallets: WalletRepository,
    private readonly topUps: TopUpStore,
    private readonly settlement: TopUpSettlement,
    private readonly providers: PaymentProviders,
    private readonly paymentMethods: PaymentMethodStore,
    private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>,
    private readonly clock: Clock,
    private readonly events: WalletEvents,
  ) {}

  onModuleInit(): void {
    this.jobs.define<{ topUpId: string }>({ name: AUTO_TOP_UP_JOB, handler: ({ topUpId }) => this.charge(topUpId) });
  }

  /** Call after a balance-lowering operation, in its transaction, with the balance before it. */
  async afterBalanceLowered(key: WalletKey, wallet: Wallet, availableBefore: Money): Promise<void> {
    const { enabled, amount, paymentMethodId } = wallet.snapshot.autoTopup;
    const threshold = wallet.snapshot.limits.lowBalanceThreshold;
    if (!enabled || !amount || !paymentMethodId || !threshold) return;
    if (availableBefore.lt(threshold) || !wallet.availableBalance.lt(threshold)) return;
    const id = newId();
    const mode = await workspaceModeOf(this.txHost.tx, key);
    const started = await this.topUps.insert(key, {
      id,
      mode: 'off_session',
      automatic: true,
      amount,
      paymentMethodId,
      provider: this.providerNameIn(mode),
      providerReference: null,
      checkoutUrl: null,
      now: this.clock.now(),
    });
    if (started) {
      await this.events.publish({ ...key, workspaceMode: mode }, [
        { type: 'wallet.top_up.created', object: topUpResponse(started.view) },
      ]);
      await this.jobs.send(AUTO_TOP_UP_JOB, jobTenantOf({ organizationId: key.organizationId, workspaceMode: mode }), {
        topUpId: id,
      });
    }
  }

  /**
   * Charges a pending automatic top-up, after resolving again everything it relies on: the
   * wallet's limits, the stored payment method (inside the wallet's tenant and customer) and the
   * workspace's provider. What no longer holds fails the top-up with its reason, uncharged.
   */
  @Transactional()
  async charge(topUpId: string): Promise<void> {
    const topUp = await this.topUps.lock(topUpId);
    if (!topUp || topUp.view.status !== 'pending') return;
    const amount = Money.of(topUp.view.amount, topUp.view.currency);
    let provider: PaymentProvider;
    try {
      provider = await this.resolveBeforeCharging(topUp, amount);
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      await this.settlement.fail(topUp, failureOf(error));
      return;
    }
    const outcome = await provider.chargeOffSession(topUpId, amount, topUp.view.paymentMethodId!);
    if (outcome.status === 'succeeded') await this.settlement.succeed(topUp, { provider, reference: outcome.providerReference });
    else await this.settlement.fail(topUp, outcome);
  }

  /** The wallet (locked, so its limits hold until settlement), its limits, the stored method, the provider. */
  private async resolveBeforeCharging(topUp: StoredTopUp, amount: Money): Promise<PaymentProvider> {
    const wallet = await this.wallets.lock(topUp.key);
    if (!wallet) throw walletNotFound();
    wallet.assertCreditAllowed(amount);
    await assertPaymentMethodOf(this.paymentMethods, wallet.snapshot, topUp.view.paymentMethodId ?? '', 'payment_method_id');
    return this.providerFor(topUp.key);
  }

  /** 'none' when the workspace has no provider: the job then fails the top-up with the reason. */
  private providerNameIn(mode: JobTenant['workspaceMode'] | undefined): string {
    if (!mode) return 'none';
    try {
      return this.providers.forWorkspace(mode).name;
    } catch (error) {
      if (error instanceof DomainError) return 'none';
      throw error;
    }
  }

  private async providerFor(key: WalletKey): Promise<PaymentProvider> {
    const mode = await workspaceModeOf(this.txHost.tx, key);
    if (!mode) throw walletNotFound();
    return this.providers.forWorkspace(mode);
  }
}

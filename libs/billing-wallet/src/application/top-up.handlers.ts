import { Transactional, TransactionHost } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { Injectable, OnModuleInit } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { Actor, AuditLog, Clock, DomainError, invalidParameter, JobQueue, Money, newId } from '@app/shared-kernel';
import { PaymentEvent, PaymentProvider } from '../domain/payment-provider';
import { Wallet } from '../domain/wallet';
import { WalletKey, WalletRepository } from '../domain/wallet.repository';
import { SandboxPaymentProvider } from '../infrastructure/sandbox-payment-provider';
import { StoredTopUp, TopUpStore } from '../infrastructure/top-up.store';
import {
  AttachPaymentMethodCommand,
  CreateTopUpCommand,
  PaymentMethodView,
  ProcessPaymentWebhookCommand,
  SettleSandboxTopUpCommand,
  TopUpView,
} from './top-up.commands';
import { keyOf, walletNotFound } from './wallet-keys';
import { assertCustomerVisible } from './visibility';

export const AUTO_TOP_UP_JOB = 'wallets.auto-top-up';
const SYSTEM = { type: 'system', id: null };

function paymentMethodNotFound(): DomainError {
  return new DomainError('not_found', 'PAYMENT_METHOD_NOT_FOUND', "No such payment method for this wallet's customer.", {
    param: 'payment_method_id',
  });
}

/** Credits a wallet for a top-up the provider reported paid, and settles the top-up; once. */
@Injectable()
export class TopUpSettlement {
  constructor(
    private readonly wallets: WalletRepository,
    private readonly topUps: TopUpStore,
    private readonly audit: AuditLog,
    private readonly clock: Clock,
  ) {}

  async succeed(topUp: StoredTopUp, providerReference: string): Promise<StoredTopUp> {
    if (topUp.view.status !== 'pending') return topUp;
    const wallet = await this.wallets.lock(topUp.key);
    if (!wallet) throw walletNotFound();
    const now = this.clock.now();
    const entry = wallet.credit({
      amount: Money.of(topUp.view.amount, topUp.view.currency),
      source: 'PAYMENT',
      reason: topUp.view.automatic ? 'automatic top-up' : 'top-up',
      reference: `top_up:${topUp.view.id}`,
      createdBy: SYSTEM,
      now,
    });
    await this.wallets.save(wallet);
    const settled = await this.topUps.settle(
      topUp.key,
      topUp.view.id,
      { status: 'succeeded', transactionId: entry.id, providerReference },
      now,
    );
    await this.record(topUp, 'wallet_top_up.succeeded');
    return settled;
  }

  async fail(
    topUp: StoredTopUp,
    outcome: { providerReference: string; failureCode: string; failureMessage: string },
  ): Promise<StoredTopUp> {
    if (topUp.view.status !== 'pending') return topUp;
    const settled = await this.topUps.settle(topUp.key, topUp.view.id, { status: 'failed', ...outcome }, this.clock.now());
    await this.record(topUp, 'wallet_top_up.failed');
    return settled;
  }

  private record(topUp: StoredTopUp, action: string): Promise<void> {
    return this.audit.record(
      { organizationId: topUp.key.organizationId, workspaceId: topUp.key.workspaceId, principal: SYSTEM },
      { action, resourceType: 'wallet_top_up', resourceId: topUp.view.id, data: { wallet_id: topUp.key.walletId } },
    );
  }
}

@CommandHandler(AttachPaymentMethodCommand)
export class AttachPaymentMethodHandler implements ICommandHandler<AttachPaymentMethodCommand> {
  constructor(
    private readonly provider: PaymentProvider,
    private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>,
    private readonly audit: AuditLog,
    private readonly clock: Clock,
  ) {}

  @Transactional()
  async execute({ actor, customerId, token }: AttachPaymentMethodCommand): Promise<PaymentMethodView> {
    await assertCustomerVisible(this.txHost.tx, actor, customerId, 'id');
    const method = await this.provider.attachPaymentMethod(token);
    const view = { ...method, customerId, provider: this.provider.name, createdAt: this.clock.now() };
    await this.txHost.tx.query(
      `INSERT INTO payment_methods (organization_id, workspace_id, id, customer_id, provider, brand, last4, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
      [actor.organizationId, actor.workspaceId, view.id, customerId, view.provider, view.brand, view.last4, view.createdAt],
    );
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
    private readonly provider: PaymentProvider,
    private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>,
    private readonly audit: AuditLog,
    private readonly clock: Clock,
  ) {}

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
    const id = newId();
    const now = this.clock.now();
    if (mode === 'hosted_checkout') {
      const checkout = await this.provider.openCheckout(id, amount);
      const topUp = await this.topUps.insert(key, {
        id,
        mode,
        automatic: false,
        amount,
        paymentMethodId: null,
        provider: this.provider.name,
        ...checkout,
        now,
      });
      await this.audit.record(actor, {
        action: 'wallet_top_up.created',
        resourceType: 'wallet_top_up',
        resourceId: id,
        data: { wallet_id: walletId, mode },
      });
      return topUp!.view;
    }
    const paymentMethodId = await this.paymentMethodOf(actor, wallet, input.paymentMethodId);
    const topUp = (await this.topUps.insert(key, {
      id,
      mode,
      automatic: false,
      amount,
      paymentMethodId,
      provider: this.provider.name,
      providerReference: null,
      checkoutUrl: null,
      now,
    }))!;
    await this.audit.record(actor, {
      action: 'wallet_top_up.created',
      resourceType: 'wallet_top_up',
      resourceId: id,
      data: { wallet_id: walletId, mode },
    });
    const charge = await this.provider.chargeOffSession(id, amount, paymentMethodId);
    if (charge.status === 'failed') {
      throw new DomainError('payment_declined', 'PAYMENT_FAILED', charge.failureMessage, {
        details: { failure_code: charge.failureCode },
      });
    }
    return (await this.settlement.succeed(topUp, charge.providerReference)).view;
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

  private async paymentMethodOf(actor: Actor, wallet: Wallet, id: string | undefined): Promise<string> {
    if (!id) throw invalidParameter('payment_method_id', 'REQUIRED', 'payment_method_id is required for off_session top-ups.');
    const rows = await this.txHost.tx.query(
      'SELECT 1 FROM payment_methods WHERE organization_id = $1 AND workspace_id = $2 AND id = $3 AND customer_id = $4',
      [actor.organizationId, actor.workspaceId, id, wallet.snapshot.customerId],
    );
    if (rows.length === 0) throw paymentMethodNotFound();
    return id;
  }
}

@CommandHandler(ProcessPaymentWebhookCommand)
export class ProcessPaymentWebhookHandler implements ICommandHandler<ProcessPaymentWebhookCommand> {
  constructor(
    private readonly provider: PaymentProvider,
    private readonly topUps: TopUpStore,
    private readonly settlement: TopUpSettlement,
    private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>,
    private readonly clock: Clock,
  ) {}

  /** Verified before anything is stored; the (provider, event id) key makes redelivery a no-op. */
  @Transactional()
  async execute({ provider, rawBody, signature }: ProcessPaymentWebhookCommand): Promise<{ duplicate: boolean }> {
    if (provider !== this.provider.name)
      throw new DomainError('not_found', 'UNKNOWN_PROVIDER', `No payment provider named ${provider}.`);
    const event: PaymentEvent = this.provider.verifyWebhook(rawBody, signature);
    const inserted = await this.txHost.tx.query(
      `INSERT INTO payment_webhook_events (provider, event_id, type, payload, received_at) VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT DO NOTHING RETURNING event_id`,
      [provider, event.id, event.type, rawBody, this.clock.now()],
    );
    if (inserted.length === 0) return { duplicate: true };
    const topUp = await this.topUps.lock(event.topUpId);
    if (!topUp) return { duplicate: false };
    if (event.type === 'top_up.succeeded') await this.settlement.succeed(topUp, event.providerReference);
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
    private readonly topUps: TopUpStore,
    private readonly settlement: TopUpSettlement,
    private readonly provider: PaymentProvider,
    private readonly clock: Clock,
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
    const started = await this.topUps.insert(key, {
      id,
      mode: 'off_session',
      automatic: true,
      amount,
      paymentMethodId,
      provider: this.provider.name,
      providerReference: null,
      checkoutUrl: null,
      now: this.clock.now(),
    });
    if (started) await this.jobs.send(AUTO_TOP_UP_JOB, { topUpId: id });
  }

  @Transactional()
  async charge(topUpId: string): Promise<void> {
    const topUp = await this.topUps.lock(topUpId);
    if (!topUp || topUp.view.status !== 'pending') return;
    const outcome = await this.provider.chargeOffSession(
      topUpId,
      Money.of(topUp.view.amount, topUp.view.currency),
      topUp.view.paymentMethodId!,
    );
    if (outcome.status === 'succeeded') await this.settlement.succeed(topUp, outcome.providerReference);
    else await this.settlement.fail(topUp, outcome);
  }
}

import { Transactional, TransactionHost } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { Injectable, OnModuleInit } from '@nestjs/common';
import { Clock, DomainError, JobQueue, JobTenant, jobTenantOf, Money, newId, workspaceModeOf } from '@app/shared-kernel';
import { PaymentProvider } from '../../domain/payment-provider';
import { Wallet } from '../../domain/wallet';
import { WalletKey, WalletRepository } from '../../domain/wallet.repository';
import { PaymentMethodStore } from '../payment-methods/payment-method.store';
import { assertPaymentMethodOf } from '../payment-methods/payment-method-reference';
import { PaymentProviders } from '../payment-providers';
import { topUpResponse } from '../transaction-response';
import { WalletEvents } from '../wallet-events';
import { walletNotFound } from '../wallet-keys';
import { failureOf, TopUpSettlement } from './top-up-settlement';
import { StoredTopUp, TopUpStore } from './top-up.store';

export const AUTO_TOP_UP_JOB = 'wallets.auto-top-up';

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

import { Transactional } from '@nestjs-cls/transactional';
import { Injectable, OnModuleInit } from '@nestjs/common';
import { CommandHandler, ICommandHandler, IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import {
  AuditLog,
  Clock,
  DomainError,
  invalidParameter,
  isUuid,
  JobQueue,
  JobTenant,
  jobTenantOf,
  Money,
  parseDecimal,
} from '@app/shared-kernel';
import { DataSource } from 'typeorm';
import { Hold } from '../domain/hold';
import { HoldRepository } from '../domain/hold.repository';
import { Wallet } from '../domain/wallet';
import { WalletKey, WalletRepository } from '../domain/wallet.repository';
import { HOLD_COLUMNS, HoldRow, toHold } from '../infrastructure/typeorm-hold.repository';
import {
  CaptureHoldCommand,
  CreateHoldCommand,
  GetHoldQuery,
  HoldInput,
  ListPendingHoldsQuery,
  ReleaseHoldCommand,
} from './hold.commands';
import { AutoTopUp } from './top-up.handlers';
import { holdResponse } from './transaction-response';
import { WalletEvents } from './wallet-events';
import { createdBy, keyOf, walletNotFound } from './wallet-keys';
import { assertWalletVisible } from './visibility';

export const RELEASE_EXPIRED_HOLD_JOB = 'wallets.release-expired-hold';
/** Jobs queued before fair scheduling carry no workspace mode. */
type ReleaseJob = WalletKey & { holdId: string; workspaceMode?: JobTenant['workspaceMode'] };
const RETRY_MARGIN_MS = 250;

function holdNotFound(): DomainError {
  return new DomainError('not_found', 'HOLD_NOT_FOUND', 'No such hold on this wallet.', { param: 'hold_id' });
}

function termsOf(input: HoldInput, wallet: Wallet) {
  wallet.assertCurrency(input.currency);
  const currency = wallet.snapshot.currency;
  if (((input.referenceId ?? null) === null) !== ((input.referenceType ?? null) === null)) {
    throw invalidParameter(
      input.referenceId ? 'reference_type' : 'reference_id',
      'REQUIRED',
      'reference_id and reference_type go together.',
    );
  }
  return {
    amount: Money.parse(input.amount, currency, 'amount'),
    expiresAt: input.expiresAt ?? null,
    reason: input.reason ?? null,
    referenceId: input.referenceId ?? null,
    referenceType: input.referenceType ?? null,
    reverseCharge: input.reverseCharge ?? false,
    taxRate:
      input.taxRate == null
        ? null
        : parseDecimal(input.taxRate, 'tax_rate', { maxIntegerDigits: 1, maxScale: 8, allowNegative: false }),
    taxRuleId: input.taxRuleId ?? null,
  };
}

/** Lock order is wallet, then hold: the same everywhere, so hold operations never deadlock. */
async function lockBoth(
  wallets: WalletRepository,
  holds: HoldRepository,
  key: WalletKey,
  holdId: string,
): Promise<{ wallet: Wallet; hold: Hold }> {
  const wallet = await wallets.lock(key);
  if (!wallet) throw walletNotFound();
  const hold = await holds.lock(key, holdId);
  if (!hold) throw holdNotFound();
  return { wallet, hold };
}

@CommandHandler(CreateHoldCommand)
export class CreateHoldHandler implements ICommandHandler<CreateHoldCommand> {
  constructor(
    private readonly wallets: WalletRepository,
    private readonly holds: HoldRepository,
    private readonly jobs: JobQueue,
    private readonly autoTopUp: AutoTopUp,
    private readonly audit: AuditLog,
    private readonly clock: Clock,
    private readonly events: WalletEvents,
  ) {}

  @Transactional()
  async execute({ actor, walletId, input }: CreateHoldCommand): Promise<Hold> {
    const key = keyOf(actor, walletId);
    const wallet = await this.wallets.lock(key);
    if (!wallet) throw walletNotFound();
    const availableBefore = wallet.availableBalance;
    const hold = wallet.placeHold(termsOf(input, wallet), this.clock.now());
    await this.wallets.save(
      wallet,
      this.holds.insertion(key, hold),
      this.audit.write(actor, {
        action: 'wallet_hold.created',
        resourceType: 'wallet_hold',
        resourceId: hold.id,
        data: { wallet_id: walletId },
      }),
      ...(await this.events.stage(
        actor,
        [{ wallet, availableBefore }],
        [{ type: 'wallet.hold.created', object: holdResponse(hold) }],
      )),
    );
    await this.autoTopUp.afterBalanceLowered(key, wallet, availableBefore);
    if (hold.snapshot.expiresAt) {
      const job: ReleaseJob = { ...key, holdId: hold.id, workspaceMode: actor.workspaceMode };
      await this.jobs.send(RELEASE_EXPIRED_HOLD_JOB, jobTenantOf(job), job, { startAfter: hold.snapshot.expiresAt });
    }
    return hold;
  }
}

@CommandHandler(CaptureHoldCommand)
export class CaptureHoldHandler implements ICommandHandler<CaptureHoldCommand> {
  constructor(
    private readonly wallets: WalletRepository,
    private readonly holds: HoldRepository,
    private readonly audit: AuditLog,
    private readonly clock: Clock,
    private readonly events: WalletEvents,
  ) {}

  @Transactional()
  async execute({ actor, walletId, holdId, amount }: CaptureHoldCommand): Promise<Hold> {
    const key = keyOf(actor, walletId);
    const { wallet, hold } = await lockBoth(this.wallets, this.holds, key, holdId);
    const captured =
      amount === undefined || amount === null ? undefined : Money.parse(amount, wallet.snapshot.currency, 'amount');
    const availableBefore = wallet.availableBalance;
    wallet.captureHold(hold, captured, createdBy(actor), this.clock.now());
    // The capture's ledger line, then the hold as captured.
    const events = await this.events.stage(
      actor,
      [{ wallet, availableBefore }],
      [{ type: 'wallet.hold.captured', object: holdResponse(hold) }],
    );
    await this.wallets.save(
      wallet,
      this.holds.update(key, hold),
      this.audit.write(actor, {
        action: 'wallet_hold.captured',
        resourceType: 'wallet_hold',
        resourceId: holdId,
        data: { wallet_id: walletId, amount: hold.snapshot.capturedAmount!.toString() },
      }),
      ...events,
    );
    return hold;
  }
}

@CommandHandler(ReleaseHoldCommand)
export class ReleaseHoldHandler implements ICommandHandler<ReleaseHoldCommand> {
  constructor(
    private readonly wallets: WalletRepository,
    private readonly holds: HoldRepository,
    private readonly audit: AuditLog,
    private readonly clock: Clock,
    private readonly events: WalletEvents,
  ) {}

  @Transactional()
  async execute({ actor, walletId, holdId }: ReleaseHoldCommand): Promise<Hold> {
    const key = keyOf(actor, walletId);
    const { wallet, hold } = await lockBoth(this.wallets, this.holds, key, holdId);
    wallet.releaseHold(hold, 'manual', this.clock.now());
    await this.wallets.save(
      wallet,
      this.holds.update(key, hold),
      this.audit.write(actor, {
        action: 'wallet_hold.released',
        resourceType: 'wallet_hold',
        resourceId: holdId,
        data: { wallet_id: walletId },
      }),
      ...(await this.events.stage(actor, [], [{ type: 'wallet.hold.released', object: holdResponse(hold) }])),
    );
    return hold;
  }
}

/** Releases a hold at its `expires_at` (a job sent with the hold, in its transaction). */
@Injectable()
export class ExpiredHoldReleaser implements OnModuleInit {
  constructor(
    private readonly jobs: JobQueue,
    private readonly wallets: WalletRepository,
    private readonly holds: HoldRepository,
    private readonly audit: AuditLog,
    private readonly clock: Clock,
    private readonly events: WalletEvents,
  ) {}

  onModuleInit(): void {
    this.jobs.define<ReleaseJob>({
      name: RELEASE_EXPIRED_HOLD_JOB,
      // P8: released within 2 s of expires_at (a capture after it is refused anyway).
      maxLatencySeconds: 0.5,
      handler: (data) => this.release(data),
    });
  }

  /** A hold already captured or released, or not yet expired, is left alone. */
  @Transactional()
  async release({ holdId, workspaceMode, ...key }: ReleaseJob): Promise<void> {
    const wallet = await this.wallets.lock(key);
    const hold = wallet && (await this.holds.lock(key, holdId));
    const now = this.clock.now();
    if (!wallet || !hold || hold.snapshot.status !== 'pending' || !hold.snapshot.expiresAt) return;
    if (!hold.isExpired(now)) {
      // Picked up a moment early by this instance's clock: try again just after expires_at.
      const retryAt = new Date(Math.max(hold.snapshot.expiresAt!.getTime(), now.getTime()) + RETRY_MARGIN_MS);
      const job: ReleaseJob = { ...key, holdId, workspaceMode };
      await this.jobs.send(RELEASE_EXPIRED_HOLD_JOB, jobTenantOf(job), job, { startAfter: retryAt });
      return;
    }
    wallet.releaseHold(hold, 'expired', now);
    await this.wallets.save(
      wallet,
      this.holds.update(key, hold),
      this.audit.write(
        { organizationId: key.organizationId, workspaceId: key.workspaceId, principal: { type: 'system', id: null } },
        { action: 'wallet_hold.expired', resourceType: 'wallet_hold', resourceId: holdId, data: { wallet_id: key.walletId } },
      ),
      ...(await this.events.stage({ ...key, workspaceMode }, [], [{ type: 'wallet.hold.released', object: holdResponse(hold) }])),
    );
  }
}

@QueryHandler(GetHoldQuery)
export class GetHoldHandler implements IQueryHandler<GetHoldQuery> {
  constructor(private readonly dataSource: DataSource) {}

  async execute({ actor, walletId, holdId }: GetHoldQuery): Promise<Hold> {
    const rows: HoldRow[] =
      isUuid(walletId) && isUuid(holdId)
        ? await this.dataSource.query(
            `SELECT ${HOLD_COLUMNS} FROM wallet_holds WHERE organization_id = $1 AND workspace_id = $2 AND wallet_id = $3 AND id = $4`,
            [actor.organizationId, actor.workspaceId, walletId, holdId],
          )
        : [];
    if (!rows[0]) throw holdNotFound();
    return toHold(rows[0]);
  }
}

@QueryHandler(ListPendingHoldsQuery)
export class ListPendingHoldsHandler implements IQueryHandler<ListPendingHoldsQuery> {
  constructor(private readonly dataSource: DataSource) {}

  async execute({ actor, walletId }: ListPendingHoldsQuery): Promise<Hold[]> {
    await assertWalletVisible(this.dataSource, actor, walletId);
    const rows: HoldRow[] = await this.dataSource.query(
      `SELECT ${HOLD_COLUMNS} FROM wallet_holds
        WHERE organization_id = $1 AND workspace_id = $2 AND wallet_id = $3 AND status = 'pending'
        ORDER BY created_at DESC, id DESC`,
      [actor.organizationId, actor.workspaceId, walletId],
    );
    return rows.map(toHold);
  }
}

import { invalidParameter, Money, newId } from '@app/shared-kernel';
import { Hold, HoldTerms } from './hold';
import { currencyMismatch, insufficientFunds, limitExceeded, referenceAlreadyUsed, WalletErrors } from './wallet-errors';

export const SOURCES = ['PAYMENT', 'REFUND', 'PROMOTION', 'INVOICE', 'CHARGE', 'FEE', 'MANUAL', 'TRANSFER'] as const;
export type Source = (typeof SOURCES)[number];
export type EntryType = 'credit' | 'debit' | 'adjustment' | 'hold_capture' | 'expiry';

export interface PromotionalLot {
  id: string;
  amount: Money;
  remaining: Money;
  expiresAt: Date | null;
  createdAt: Date;
}

/** Which lots and how much cash paid for a debit (its funding trace). */
export interface Funding {
  lots: Array<{ lotId: string; amount: Money; expiresAt: Date | null }>;
  cash: Money;
}

/** A part of a transfer as the target receives it: cash, or a promotional lot with its expiry. */
export interface TransferPortion {
  amount: Money;
  promotional: boolean;
  expiresAt: Date | null;
}

export interface Creator {
  type: string;
  id: string | null;
}

/** One append-only ledger line, with the balances after it. Amounts are signed. */
export interface LedgerEntry {
  id: string;
  type: EntryType;
  source: Source | null;
  amount: Money;
  cashAmount: Money;
  promotionalAmount: Money;
  endingCash: Money;
  endingPromotional: Money;
  reason: string | null;
  reference: string | null;
  transferId: string | null;
  holdId: string | null;
  expiresAt: Date | null;
  exchangeRate: Record<string, string> | null;
  funding: Funding | null;
  createdBy: Creator;
  createdAt: Date;
}

export interface WalletLimits {
  creditLimit: Money;
  maxBalance: Money | null;
  maxSingleCredit: Money | null;
  lowBalanceThreshold: Money | null;
}

export interface AutoTopup {
  enabled: boolean;
  amount: Money | null;
  paymentMethodId: string | null;
}

export interface WalletState {
  organizationId: string;
  workspaceId: string;
  id: string;
  customerId: string;
  currency: string;
  isPrimary: boolean;
  cash: Money;
  promotional: Money;
  held: Money;
  limits: WalletLimits;
  autoTopup: AutoTopup;
  lots: PromotionalLot[];
  version: number;
  createdAt: Date;
  updatedAt: Date;
}

export interface MoneyMovement {
  amount: Money;
  source: Source;
  reason?: string | null;
  reference?: string | null;
  createdBy: Creator;
  now: Date;
}

/** What a save must write: the ledger lines appended and the lots created or drawn down. */
export interface WalletChanges {
  /** The version the stored row has (as loaded, or as last saved): the save writes only over that one. */
  storedVersion: number;
  entries: LedgerEntry[];
  lotsCreated: PromotionalLot[];
  lotsDrawn: Array<{ lotId: string; remaining: Money }>;
}

/**
 * A prepaid wallet. Spending draws promotional lots first (soonest expiry, then oldest),
 * then cash, then down to −credit_limit; each debit records its funding trace. Balances are
 * the running totals of the ledger lines, which are only ever appended.
 */
export class Wallet {
  private changes: Omit<WalletChanges, 'storedVersion'> = { entries: [], lotsCreated: [], lotsDrawn: [] };
  /** The version of the row in the database: as loaded, then as each save leaves it. */
  private storedVersion: number;

  private constructor(private state: WalletState) {
    this.storedVersion = state.version;
  }

  static restore(state: WalletState): Wallet {
    return new Wallet(state);
  }

  static open(fields: {
    organizationId: string;
    workspaceId: string;
    customerId: string;
    currency: string;
    isPrimary: boolean;
    limits?: Partial<WalletLimits>;
    autoTopup?: Partial<AutoTopup>;
    now: Date;
  }): Wallet {
    const zero = Money.zero(fields.currency);
    const wallet = new Wallet({
      organizationId: fields.organizationId,
      workspaceId: fields.workspaceId,
      id: newId(),
      customerId: fields.customerId,
      currency: fields.currency,
      isPrimary: fields.isPrimary,
      cash: zero,
      promotional: zero,
      held: zero,
      limits: { creditLimit: zero, maxBalance: null, maxSingleCredit: null, lowBalanceThreshold: null },
      autoTopup: { enabled: false, amount: null, paymentMethodId: null },
      lots: [],
      version: 1,
      createdAt: fields.now,
      updatedAt: fields.now,
    });
    wallet.configure({ ...fields.limits, autoTopup: fields.autoTopup }, fields.now);
    wallet.state.version = 1;
    wallet.storedVersion = 1;
    return wallet;
  }

  get snapshot(): Readonly<WalletState> {
    return this.state;
  }

  get id(): string {
    return this.state.id;
  }

  /** Ledger lines and lot changes since the wallet was loaded; cleared by the repository. */
  takeChanges(): WalletChanges {
    const changes = { ...this.changes, storedVersion: this.storedVersion };
    this.changes = { entries: [], lotsCreated: [], lotsDrawn: [] };
    this.storedVersion = this.state.version;
    return changes;
  }

  /** The ledger lines appended since the wallet was loaded and not yet saved (takeChanges keeps them). */
  get pendingEntries(): readonly LedgerEntry[] {
    return this.changes.entries;
  }

  /** cash + promotional − held, as the API shows it. */
  get availableBalance(): Money {
    return this.state.cash.plus(this.state.promotional).minus(this.state.held);
  }

  /**
   * What may still be spent at `now`: expired lots no longer count, the credit limit does. A
   * capture passes its hold's placement time: what the hold reserved stays spendable for it.
   */
  spendable(now: Date, reservedAt?: Date): Money {
    const expired = this.state.lots
      .filter((lot) => !isSpendable(lot, now, reservedAt))
      .reduce((sum, lot) => sum.plus(lot.remaining), this.zero());
    return this.availableBalance.minus(expired).plus(this.state.limits.creditLimit);
  }

  assertCurrency(currency: string | undefined): void {
    if (currency !== undefined && currency !== this.state.currency) throw currencyMismatch(this.state.currency, currency);
  }

  /**
   * Whether the wallet would take this credit now: within max_single_credit and max_balance.
   * Top-ups ask before any money moves; credit and transferIn ask again when they apply.
   */
  assertCreditAllowed(amount: Money): void {
    this.positive(amount);
    const { maxSingleCredit, maxBalance } = this.state.limits;
    if (maxSingleCredit && amount.gt(maxSingleCredit)) throw limitExceeded('max_single_credit', maxSingleCredit);
    if (maxBalance && this.state.cash.plus(this.state.promotional).plus(amount).gt(maxBalance))
      throw limitExceeded('max_balance', maxBalance);
  }

  credit(movement: MoneyMovement & { expiresAt?: Date | null }): LedgerEntry {
    const amount = this.positive(movement.amount);
    this.assertCreditAllowed(amount);
    const promotion = movement.source === 'PROMOTION';
    const expiresAt = movement.expiresAt ?? null;
    if (!promotion && expiresAt)
      throw invalidParameter('expires_at', 'NOT_ALLOWED', 'expires_at applies to PROMOTION credits only.');
    if (expiresAt && expiresAt <= movement.now)
      throw invalidParameter('expires_at', 'OUT_OF_RANGE', 'expires_at must be in the future.');
    if (promotion) {
      const lot = { id: newId(), amount, remaining: amount, expiresAt, createdAt: movement.now };
      this.state.lots.push(lot);
      this.changes.lotsCreated.push(lot);
      this.state.promotional = this.state.promotional.plus(amount);
    } else {
      this.state.cash = this.state.cash.plus(amount);
    }
    return this.append({
      ...movement,
      type: 'credit',
      amount,
      cashAmount: promotion ? this.zero() : amount,
      promotionalAmount: promotion ? amount : this.zero(),
      expiresAt,
      funding: null,
    });
  }

  debit(movement: MoneyMovement): LedgerEntry {
    const amount = this.positive(movement.amount);
    const funding = this.fund(amount, movement.now);
    return this.append({
      ...movement,
      type: 'debit',
      amount: amount.negate(),
      cashAmount: funding.cash.negate(),
      promotionalAmount: funding.promotional.negate(),
      expiresAt: null,
      funding: funding.trace,
    });
  }

  /** A signed correction of the cash balance; a negative one may not pass −credit_limit. */
  adjust(movement: MoneyMovement): LedgerEntry {
    const amount = movement.amount;
    if (amount.isZero()) throw invalidParameter('amount', 'OUT_OF_RANGE', 'amount must not be zero.');
    if (amount.isNegative() && amount.abs().gt(this.spendable(movement.now)))
      throw insufficientFunds(amount.abs(), this.spendable(movement.now));
    if (
      amount.isPositive() &&
      this.state.limits.maxBalance &&
      this.state.cash.plus(this.state.promotional).plus(amount).gt(this.state.limits.maxBalance)
    ) {
      throw limitExceeded('max_balance', this.state.limits.maxBalance);
    }
    this.state.cash = this.state.cash.plus(amount);
    return this.append({
      ...movement,
      type: 'adjustment',
      amount,
      cashAmount: amount,
      promotionalAmount: this.zero(),
      expiresAt: null,
      funding: null,
    });
  }

  /**
   * The outgoing leg of a transfer: funded like a debit (promotional lots first); returns the
   * portions the target receives, each lot portion keeping its expiry.
   */
  transferOut(
    amount: Money,
    transferId: string,
    createdBy: Creator,
    now: Date,
    reason: string | null,
  ): { entry: LedgerEntry; portions: TransferPortion[] } {
    const positive = this.positive(amount);
    const funding = this.fund(positive, now);
    const entry = this.append({
      type: 'debit',
      source: 'TRANSFER',
      amount: positive.negate(),
      cashAmount: funding.cash.negate(),
      promotionalAmount: funding.promotional.negate(),
      expiresAt: null,
      funding: funding.trace,
      reason,
      reference: null,
      createdBy,
      now,
    });
    entry.transferId = transferId;
    const portions: TransferPortion[] = funding.trace.lots.map((lot) => ({
      amount: lot.amount,
      promotional: true,
      expiresAt: lot.expiresAt,
    }));
    if (funding.cash.isPositive()) portions.push({ amount: funding.cash, promotional: false, expiresAt: null });
    return { entry, portions };
  }

  /** The incoming leg: cash stays cash, each promotional portion becomes a lot with its expiry. */
  transferIn(portions: TransferPortion[], transferId: string, createdBy: Creator, now: Date, reason: string | null): LedgerEntry {
    const total = portions.reduce((sum, portion) => sum.plus(portion.amount), this.zero());
    const amount = this.positive(total);
    this.assertCreditAllowed(amount);
    let promotional = this.zero();
    for (const portion of portions.filter((candidate) => candidate.promotional && candidate.amount.isPositive())) {
      const lot = {
        id: newId(),
        amount: portion.amount,
        remaining: portion.amount,
        expiresAt: portion.expiresAt,
        createdAt: now,
      };
      this.state.lots.push(lot);
      this.changes.lotsCreated.push(lot);
      promotional = promotional.plus(portion.amount);
    }
    const cash = amount.minus(promotional);
    this.state.promotional = this.state.promotional.plus(promotional);
    this.state.cash = this.state.cash.plus(cash);
    const entry = this.append({
      type: 'credit',
      source: 'TRANSFER',
      amount,
      cashAmount: cash,
      promotionalAmount: promotional,
      expiresAt: null,
      funding: null,
      reason,
      reference: null,
      createdBy,
      now,
    });
    entry.transferId = transferId;
    return entry;
  }

  /** Reserves funds: they stay in the balance but no longer count as available. */
  placeHold(terms: HoldTerms, now: Date): Hold {
    const amount = this.positive(terms.amount);
    const spendable = this.spendable(now);
    if (amount.gt(spendable)) throw insufficientFunds(amount, spendable);
    if (terms.expiresAt && terms.expiresAt <= now)
      throw invalidParameter('expires_at', 'OUT_OF_RANGE', 'expires_at must be in the future.');
    this.state.held = this.state.held.plus(amount);
    this.touch(now);
    return Hold.place(this.state.id, terms, now);
  }

  /** Captures all or part of a hold as a `hold_capture` line; the remainder is released. */
  captureHold(hold: Hold, amount: Money | undefined, createdBy: Creator, now: Date): LedgerEntry {
    const captured = amount ?? hold.amount;
    this.positive(captured);
    hold.assertCapturable(captured, now);
    this.state.held = this.state.held.minus(hold.amount);
    // Lots that expired after the hold was placed still fund it: the hold reserved them.
    const funding = this.fund(captured, now, hold.snapshot.createdAt);
    const entry = this.append({
      type: 'hold_capture',
      source: 'CHARGE',
      amount: captured.negate(),
      cashAmount: funding.cash.negate(),
      promotionalAmount: funding.promotional.negate(),
      expiresAt: null,
      funding: funding.trace,
      reason: hold.snapshot.reason,
      reference: null,
      createdBy,
      now,
    });
    entry.holdId = hold.id;
    hold.captured(captured, entry.id, now);
    return entry;
  }

  releaseHold(hold: Hold, reason: 'manual' | 'expired', now: Date): void {
    hold.release(reason, now);
    this.state.held = this.state.held.minus(hold.amount);
    this.touch(now);
  }

  private touch(now: Date): void {
    this.state.updatedAt = now;
    this.state.version += 1;
  }

  /**
   * Lots past their expiry leave the balance through one `expiry` line each, as far as the
   * balance stays at or above −credit_limit: what pending holds still cover waits until they
   * are captured or released, and a later sweep takes it.
   */
  expireLots(now: Date, createdBy: Creator): LedgerEntry[] {
    const entries: LedgerEntry[] = [];
    let free = this.availableBalance.plus(this.state.limits.creditLimit);
    for (const lot of this.state.lots.filter((candidate) => isExpired(candidate, now) && candidate.remaining.isPositive())) {
      const amount = Money.min(lot.remaining, free);
      if (!amount.isPositive()) break;
      free = free.minus(amount);
      this.drawLot(lot, amount);
      this.state.promotional = this.state.promotional.minus(amount);
      entries.push(
        this.append({
          type: 'expiry',
          source: null,
          amount: amount.negate(),
          cashAmount: this.zero(),
          promotionalAmount: amount.negate(),
          expiresAt: lot.expiresAt,
          funding: { lots: [{ lotId: lot.id, amount, expiresAt: lot.expiresAt }], cash: this.zero() },
          reason: 'promotional credit expired',
          reference: null,
          createdBy,
          now,
        }),
      );
    }
    return entries;
  }

  private fund(amount: Money, now: Date, reservedAt?: Date): { cash: Money; promotional: Money; trace: Funding } {
    const spendable = this.spendable(now, reservedAt);
    if (amount.gt(spendable)) throw insufficientFunds(amount, spendable);
    let rest = amount;
    const lots: Funding['lots'] = [];
    for (const lot of this.spendingOrder(now, reservedAt)) {
      if (rest.isZero()) break;
      const drawn = Money.min(lot.remaining, rest);
      this.drawLot(lot, drawn);
      lots.push({ lotId: lot.id, amount: drawn, expiresAt: lot.expiresAt });
      rest = rest.minus(drawn);
    }
    const promotional = amount.minus(rest);
    this.state.promotional = this.state.promotional.minus(promotional);
    this.state.cash = this.state.cash.minus(rest);
    return { cash: rest, promotional, trace: { lots, cash: rest } };
  }

  /** Soonest expiry first (never-expiring last), then oldest. */
  private spendingOrder(now: Date, reservedAt?: Date): PromotionalLot[] {
    return this.state.lots
      .filter((lot) => lot.remaining.isPositive() && isSpendable(lot, now, reservedAt))
      .sort(
        (a, b) =>
          (a.expiresAt?.getTime() ?? Infinity) - (b.expiresAt?.getTime() ?? Infinity) ||
          a.createdAt.getTime() - b.createdAt.getTime() ||
          a.id.localeCompare(b.id),
      );
  }

  private drawLot(lot: PromotionalLot, amount: Money): void {
    lot.remaining = lot.remaining.minus(amount);
    const drawn = this.changes.lotsDrawn.find((change) => change.lotId === lot.id);
    if (drawn) drawn.remaining = lot.remaining;
    else this.changes.lotsDrawn.push({ lotId: lot.id, remaining: lot.remaining });
  }

  private append(
    line: Omit<
      LedgerEntry,
      'id' | 'endingCash' | 'endingPromotional' | 'transferId' | 'holdId' | 'exchangeRate' | 'createdAt' | 'reason' | 'reference'
    > & {
      reason?: string | null;
      reference?: string | null;
      now: Date;
    },
  ): LedgerEntry {
    const entry: LedgerEntry = {
      id: newId(),
      type: line.type,
      source: line.source,
      amount: line.amount,
      cashAmount: line.cashAmount,
      promotionalAmount: line.promotionalAmount,
      endingCash: this.state.cash,
      endingPromotional: this.state.promotional,
      reason: line.reason ?? null,
      reference: line.reference ?? null,
      transferId: null,
      holdId: null,
      expiresAt: line.expiresAt,
      exchangeRate: null,
      funding: line.funding,
      createdBy: line.createdBy,
      createdAt: line.now,
    };
    this.state.updatedAt = line.now;
    this.state.version += 1;
    this.changes.entries.push(entry);
    return entry;
  }

  private positive(amount: Money): Money {
    this.assertCurrency(amount.currency);
    if (!amount.isPositive()) throw invalidParameter('amount', 'OUT_OF_RANGE', 'amount must be greater than zero.');
    return amount;
  }

  private zero(): Money {
    return Money.zero(this.state.currency);
  }

  makePrimary(now: Date): void {
    this.state = { ...this.state, isPrimary: true, updatedAt: now, version: this.state.version + 1 };
  }

  /** Settings and limits; only what is given changes. */
  configure(settings: Partial<WalletLimits> & { autoTopup?: Partial<AutoTopup> }, now: Date): void {
    const limits = { ...this.state.limits };
    if (settings.creditLimit !== undefined) limits.creditLimit = this.nonNegative(settings.creditLimit, 'credit_limit');
    if (settings.maxBalance !== undefined)
      limits.maxBalance = settings.maxBalance && this.nonNegative(settings.maxBalance, 'max_balance');
    if (settings.maxSingleCredit !== undefined) {
      limits.maxSingleCredit = settings.maxSingleCredit && this.nonNegative(settings.maxSingleCredit, 'max_single_credit');
    }
    if (settings.lowBalanceThreshold !== undefined) limits.lowBalanceThreshold = settings.lowBalanceThreshold;
    const autoTopup = { ...this.state.autoTopup, ...definedOnly(settings.autoTopup ?? {}) };
    if (autoTopup.amount && !this.nonNegative(autoTopup.amount, 'auto_topup_amount').isPositive())
      throw invalidParameter('auto_topup_amount', 'OUT_OF_RANGE', 'auto_topup_amount must be greater than zero.');
    if (this.availableBalance.lt(limits.creditLimit.negate())) {
      throw WalletErrors.CREDIT_LIMIT_BELOW_BALANCE.create('credit_limit cannot be lower than what the wallet already owes.', {
        param: 'credit_limit',
        details: { credit_limit: limits.creditLimit.toString(), available_balance: this.availableBalance.toString() },
      });
    }
    if (autoTopup.enabled && (!autoTopup.amount || !autoTopup.amount.isPositive() || !limits.lowBalanceThreshold)) {
      throw WalletErrors.AUTO_TOPUP_INCOMPLETE.create(
        'Auto top-up needs a positive auto_topup_amount and a low_balance_threshold.',
        {
          param: 'auto_topup_enabled',
        },
      );
    }
    this.state = { ...this.state, limits, autoTopup, updatedAt: now, version: this.state.version + 1 };
  }

  private nonNegative(value: Money, param: string): Money {
    this.assertCurrency(value.currency);
    if (value.isNegative()) throw invalidParameter(param, 'OUT_OF_RANGE', `${param} must not be negative.`);
    return value;
  }
}

/**
 * A repeated (source, reference) on a wallet is the original operation asked again only when it
 * asks for the same thing: the same kind of line, the same signed amount in the same currency.
 * Anything else reusing the reference is refused, naming the original.
 */
export function replayOf(original: LedgerEntry, type: EntryType, signedAmount: Money): LedgerEntry {
  const same = original.type === type && original.amount.currency === signedAmount.currency && original.amount.eq(signedAmount);
  if (!same) throw referenceAlreadyUsed(original.id);
  return original;
}

function isExpired(lot: PromotionalLot, now: Date): boolean {
  return lot.expiresAt !== null && lot.expiresAt <= now;
}

/** Unexpired now, or (for a hold's capture) already there and unexpired when the hold was placed. */
function isSpendable(lot: PromotionalLot, now: Date, reservedAt: Date | undefined): boolean {
  if (!isExpired(lot, now)) return true;
  return reservedAt !== undefined && lot.createdAt <= reservedAt && !isExpired(lot, reservedAt);
}

function definedOnly<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, item]) => item !== undefined)) as Partial<T>;
}

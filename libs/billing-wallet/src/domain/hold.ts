import Big from 'big.js';
import { Money, newId } from '@app/shared-kernel';
import { WalletErrors } from './wallet-errors';

export type HoldStatus = 'pending' | 'captured' | 'released';
export type ReleaseReason = 'manual' | 'expired' | 'capture_remainder';

export interface HoldTerms {
  amount: Money;
  expiresAt: Date | null;
  reason: string | null;
  referenceId: string | null;
  referenceType: string | null;
  reverseCharge: boolean;
  /** A decimal fraction: 0.19 is 19 %. */
  taxRate: Big | null;
  taxRuleId: string | null;
}

export interface HoldState extends HoldTerms {
  id: string;
  walletId: string;
  status: HoldStatus;
  releaseReason: ReleaseReason | null;
  capturedAmount: Money | null;
  capturedNetAmount: Money | null;
  capturedTaxAmount: Money | null;
  captureTransactionId: string | null;
  capturedAt: Date | null;
  releasedAt: Date | null;
  createdAt: Date;
}

/**
 * Funds reserved on a wallet until captured (fully or partly, the rest released) or released,
 * by hand or at `expires_at`. Past `expires_at` a hold cannot be captured, whether or not the
 * release job has run yet.
 */
export class Hold {
  private constructor(private state: HoldState) {}

  static restore(state: HoldState): Hold {
    return new Hold(state);
  }

  static place(walletId: string, terms: HoldTerms, now: Date): Hold {
    return new Hold({
      ...terms,
      id: newId(),
      walletId,
      status: 'pending',
      releaseReason: null,
      capturedAmount: null,
      capturedNetAmount: null,
      capturedTaxAmount: null,
      captureTransactionId: null,
      capturedAt: null,
      releasedAt: null,
      createdAt: now,
    });
  }

  get snapshot(): Readonly<HoldState> {
    return this.state;
  }

  get id(): string {
    return this.state.id;
  }

  get amount(): Money {
    return this.state.amount;
  }

  isExpired(now: Date): boolean {
    return this.state.expiresAt !== null && this.state.expiresAt <= now;
  }

  assertCapturable(amount: Money, now: Date): void {
    this.assertPending('captured');
    if (this.isExpired(now)) {
      throw WalletErrors.HOLD_NOT_PENDING.create('This hold expired and can no longer be captured.', {
        details: { status: 'expired', expires_at: this.state.expiresAt!.toISOString() },
      });
    }
    if (amount.gt(this.state.amount)) {
      throw WalletErrors.CAPTURE_EXCEEDS_HOLD.create(`At most ${this.state.amount.toString()} can be captured.`, {
        param: 'amount',
        details: { held: this.state.amount.toString() },
      });
    }
  }

  /** With reverse charge the tax is zero; else the gross splits at tax_rate, rounded half-even. */
  captured(amount: Money, transactionId: string, now: Date): void {
    const { reverseCharge, taxRate } = this.state;
    const net = reverseCharge || !taxRate ? amount : amount.divide(new Big(1).plus(taxRate));
    this.state = {
      ...this.state,
      status: 'captured',
      releaseReason: amount.lt(this.state.amount) ? 'capture_remainder' : null,
      capturedAmount: amount,
      capturedNetAmount: net,
      capturedTaxAmount: amount.minus(net),
      captureTransactionId: transactionId,
      capturedAt: now,
      releasedAt: amount.lt(this.state.amount) ? now : null,
    };
  }

  release(reason: Exclude<ReleaseReason, 'capture_remainder'>, now: Date): void {
    this.assertPending('released');
    this.state = { ...this.state, status: 'released', releaseReason: reason, releasedAt: now };
  }

  private assertPending(target: HoldStatus): void {
    if (this.state.status !== 'pending') {
      throw WalletErrors.HOLD_NOT_PENDING.create(`This hold is already ${this.state.status}.`, {
        details: { status: this.state.status, requested: target },
      });
    }
  }
}

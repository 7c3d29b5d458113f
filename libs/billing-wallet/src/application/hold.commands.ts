import { Command, Query } from '@nestjs/cqrs';
import { Actor } from '@app/shared-kernel';
import { Hold } from '../domain/hold';

export interface HoldInput {
  amount: unknown;
  currency?: string;
  expiresAt?: Date | null;
  reason?: string | null;
  referenceId?: string | null;
  referenceType?: string | null;
  reverseCharge?: boolean;
  taxRate?: string | null;
  taxRuleId?: string | null;
}

export class CreateHoldCommand extends Command<Hold> {
  constructor(
    readonly actor: Actor,
    readonly walletId: string,
    readonly input: HoldInput,
  ) {
    super();
  }
}

export class CaptureHoldCommand extends Command<Hold> {
  constructor(
    readonly actor: Actor,
    readonly walletId: string,
    readonly holdId: string,
    readonly amount: unknown,
  ) {
    super();
  }
}

export class ReleaseHoldCommand extends Command<Hold> {
  constructor(
    readonly actor: Actor,
    readonly walletId: string,
    readonly holdId: string,
  ) {
    super();
  }
}

export class GetHoldQuery extends Query<Hold> {
  constructor(
    readonly actor: Actor,
    readonly walletId: string,
    readonly holdId: string,
  ) {
    super();
  }
}

export class ListPendingHoldsQuery extends Query<Hold[]> {
  constructor(
    readonly actor: Actor,
    readonly walletId: string,
  ) {
    super();
  }
}

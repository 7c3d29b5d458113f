import { Command } from '@nestjs/cqrs';
import { Actor } from '@app/shared-kernel';
import { Hold } from '../../domain/hold';

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

import { Query } from '@nestjs/cqrs';
import { Actor } from '@app/shared-kernel';
import { Hold } from '../../domain/hold';

export class GetHoldQuery extends Query<Hold> {
  constructor(
    readonly actor: Actor,
    readonly walletId: string,
    readonly holdId: string,
  ) {
    super();
  }
}

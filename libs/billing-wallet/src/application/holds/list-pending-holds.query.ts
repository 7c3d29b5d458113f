import { Query } from '@nestjs/cqrs';
import { Actor } from '@app/shared-kernel';
import { Hold } from '../../domain/hold';

export class ListPendingHoldsQuery extends Query<Hold[]> {
  constructor(
    readonly actor: Actor,
    readonly walletId: string,
  ) {
    super();
  }
}

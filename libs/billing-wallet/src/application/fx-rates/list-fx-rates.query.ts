import { Query } from '@nestjs/cqrs';
import { Actor } from '@app/shared-kernel';
import { FxRateView } from './fx-rate.view';

export class ListFxRatesQuery extends Query<FxRateView[]> {
  constructor(readonly actor: Actor) {
    super();
  }
}

import { Query } from '@nestjs/cqrs';
import { Actor } from '@app/shared-kernel';

export interface SupersedeForecastView {
  pinnable: boolean;
  republishes_consumers: boolean;
  live_readers: number;
}

export class GetSupersedeForecastQuery extends Query<SupersedeForecastView> {
  constructor(
    readonly actor: Actor,
    readonly planId: string,
    readonly version: number,
  ) {
    super();
  }
}

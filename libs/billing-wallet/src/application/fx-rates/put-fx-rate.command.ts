import { Command } from '@nestjs/cqrs';
import { Actor } from '@app/shared-kernel';
import { FxRateView } from './fx-rate.view';

export class PutFxRateCommand extends Command<FxRateView> {
  constructor(
    readonly actor: Actor,
    readonly fromCurrency: string,
    readonly toCurrency: string,
    readonly rate: unknown,
  ) {
    super();
  }
}

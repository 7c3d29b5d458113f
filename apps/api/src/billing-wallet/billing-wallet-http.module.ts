import { Module } from '@nestjs/common';
import { BillingWalletModule } from '@app/billing-wallet';
import { FxRatesController } from './fx-rates.controller';
import { TopUpsController } from './top-ups.controller';
import { WalletsController } from './wallets.controller';

@Module({ imports: [BillingWalletModule], controllers: [WalletsController, FxRatesController, TopUpsController] })
export class BillingWalletHttpModule {}

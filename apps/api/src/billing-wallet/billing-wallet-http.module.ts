import { Module } from '@nestjs/common';
import { BillingWalletModule } from '@app/billing-wallet';
import { FxRatesController } from './fx-rates.controller';
import { TopUpsController } from './top-ups.controller';
import { WalletDebitsController } from './wallet-debits.controller';
import { WalletsController } from './wallets.controller';

@Module({
  imports: [BillingWalletModule],
  controllers: [WalletsController, WalletDebitsController, FxRatesController, TopUpsController],
})
export class BillingWalletHttpModule {}

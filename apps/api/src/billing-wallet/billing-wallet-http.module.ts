import { Module } from '@nestjs/common';
import { BillingWalletModule } from '@app/billing-wallet';
import { WalletsController } from './wallets.controller';

@Module({ imports: [BillingWalletModule], controllers: [WalletsController] })
export class BillingWalletHttpModule {}

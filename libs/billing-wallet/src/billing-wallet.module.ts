import { Module } from '@nestjs/common';

/** Wallets, the ledger, holds, transfers, FX rates, top-ups and the payment-provider port. */
@Module({})
export class BillingWalletModule {}

export * from './billing-wallet.module';

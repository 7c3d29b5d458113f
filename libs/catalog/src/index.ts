export * from './catalog.module';

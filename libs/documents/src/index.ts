export * from './documents.module';

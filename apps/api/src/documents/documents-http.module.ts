import { DynamicModule, Module } from '@nestjs/common';
import { DocumentsModule } from '@app/documents';
import { AppConfig } from '../config/app-config';
import { DocumentTemplatesController } from './document-templates.controller';

@Module({})
export class DocumentsHttpModule {
  static register(config: Pick<AppConfig, 'PDF_PREVIEW_RATE_LIMIT_PER_MINUTE'>): DynamicModule {
    return {
      module: DocumentsHttpModule,
      imports: [DocumentsModule.register({ previewRateLimitPerMinute: config.PDF_PREVIEW_RATE_LIMIT_PER_MINUTE })],
      controllers: [DocumentTemplatesController],
    };
  }
}

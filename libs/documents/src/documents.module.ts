import { DynamicModule, Module } from '@nestjs/common';
import { DocumentsOptions } from './application/documents-options';
import { PreviewTemplateHandler, TemplateThumbnailHandler } from './application/preview.handlers';
import {
  ClearDefaultTemplateHandler,
  CopyTemplateHandler,
  CreateTemplateHandler,
  DeleteTemplateHandler,
  MarkDefaultTemplateHandler,
  UpdateTemplateHandler,
} from './application/template.handlers';
import {
  GetTemplateHandler,
  ListEmailKindsHandler,
  ListTemplatesHandler,
  ResolveTemplateHandler,
} from './application/template.queries';
import { TemplateRepository } from './domain/template.repository';
import { PreviewCache } from './application/preview-cache';
import { DocumentRenderer } from './infrastructure/rendering/document-renderer';
import { RenderPool } from './infrastructure/rendering/render-pool';
import { RenderBudget } from './application/render-budget';
import { TypeOrmTemplateRepository } from './infrastructure/typeorm-template.repository';

/** Document templates and their rendering (PDF previews, SVG thumbnails, e-mail renders). */
@Module({})
export class DocumentsModule {
  static register(options: { previewRateLimitPerMinute: number }): DynamicModule {
    return {
      module: DocumentsModule,
      providers: [
        { provide: DocumentsOptions, useValue: { previewRateLimitPerMinute: options.previewRateLimitPerMinute } },
        { provide: TemplateRepository, useClass: TypeOrmTemplateRepository },
        { provide: PreviewCache, useFactory: () => new PreviewCache() },
        DocumentRenderer,
        { provide: RenderPool, useFactory: () => new RenderPool() },
        RenderBudget,
        CreateTemplateHandler,
        UpdateTemplateHandler,
        DeleteTemplateHandler,
        CopyTemplateHandler,
        MarkDefaultTemplateHandler,
        ClearDefaultTemplateHandler,
        GetTemplateHandler,
        ListTemplatesHandler,
        ListEmailKindsHandler,
        ResolveTemplateHandler,
        PreviewTemplateHandler,
        TemplateThumbnailHandler,
      ],
    };
  }
}

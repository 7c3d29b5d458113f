import { DynamicModule, Module } from '@nestjs/common';
import { DocumentsOptions } from './application/documents-options';
import { ListEmailKindsHandler } from './application/email-kinds/list-email-kinds.handler';
import { PreviewTemplateHandler } from './application/previews/preview-template.handler';
import { TemplateThumbnailHandler } from './application/previews/template-thumbnail.handler';
import { ClearDefaultTemplateHandler } from './application/templates/clear-default-template.handler';
import { CopyTemplateHandler } from './application/templates/copy-template.handler';
import { CreateTemplateHandler } from './application/templates/create-template.handler';
import { DeleteTemplateHandler } from './application/templates/delete-template.handler';
import { GetTemplateHandler } from './application/templates/get-template.handler';
import { ListTemplatesHandler } from './application/templates/list-templates.handler';
import { MarkDefaultTemplateHandler } from './application/templates/mark-default-template.handler';
import { ResolveTemplateHandler } from './application/templates/resolve-template.handler';
import { UpdateTemplateHandler } from './application/templates/update-template.handler';
import { TemplateReads } from './application/templates/template-reads';
import { TemplateRepository } from './domain/template.repository';
import { PreviewCache } from './application/previews/preview-cache';
import { FooterBounds, TemplateRenderer } from './application/render-ports';
import { DocumentRenderer } from './infrastructure/rendering/document-renderer';
import { RenderPool } from './infrastructure/rendering/render-pool';
import { RenderBudget } from './application/previews/render-budget';
import { TypeOrmTemplateReads } from './infrastructure/typeorm-template.reads';
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
        { provide: TemplateReads, useClass: TypeOrmTemplateReads },
        { provide: PreviewCache, useFactory: () => new PreviewCache() },
        { provide: FooterBounds, useClass: DocumentRenderer },
        { provide: TemplateRenderer, useFactory: () => new RenderPool() },
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

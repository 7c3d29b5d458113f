import { Module } from '@nestjs/common';

/** Document templates and their rendering (PDF previews, SVG thumbnails). */
@Module({})
export class DocumentsModule {}

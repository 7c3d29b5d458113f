import type { DocumentType, TemplateKind } from '../domain/document-template';
import type { TemplateDocument } from '../domain/template-document';

/**
 * Rendering as the use cases ask for it: ports (abstract classes, also the DI tokens) whose
 * adapters live in infrastructure/rendering/ and are bound in documents.module.ts.
 */

export type RenderFormat = 'pdf' | 'html' | 'text';

export interface RenderInput {
  document: TemplateDocument;
  kind: TemplateKind;
  anchorKey: string | null;
  documentType: DocumentType;
  /** Sample size: more line items than the preview's realistic default (benchmarks: a 3-page invoice). */
  lineCount?: number;
}

export const CONTENT_TYPES: Record<RenderFormat, string> = {
  pdf: 'application/pdf',
  html: 'text/html; charset=utf-8',
  text: 'text/plain; charset=utf-8',
};

/**
 * One render: one document in one format (`svg`: the first-page thumbnail; `layout`: the pages
 * only, to learn whether the document stays within its bounds).
 */
export interface RenderJob {
  input: RenderInput;
  format: RenderFormat | 'svg' | 'layout';
}

/**
 * Renders templates filled with sample data off the event loop, each render within a time and a
 * heap budget (503 RENDER_BUDGET_EXCEEDED past either). Adapter: the render pool
 * (infrastructure/rendering/render-pool.ts).
 */
export abstract class TemplateRenderer {
  abstract render(job: RenderJob): Promise<Buffer>;

  /**
   * Lays the document out as each of its document types, as a preview would, so that a template
   * past the render limits (or with a footer too tall) is refused when it is saved, not each time
   * it is drawn.
   */
  abstract checkBounds(
    document: TemplateDocument,
    kind: TemplateKind,
    anchorKey: string | null,
    documentTypes: DocumentType[],
  ): Promise<void>;
}

/**
 * The quick check, on the calling thread, of a document a request brings: refuses, pointing at the
 * field, a document whose footer would leave too little of each page to its content. Adapter: the
 * document renderer (infrastructure/rendering/document-renderer.ts).
 */
export abstract class FooterBounds {
  abstract checkBounds(document: TemplateDocument): void;
}

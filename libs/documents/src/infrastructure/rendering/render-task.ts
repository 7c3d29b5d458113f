import { DomainError, DomainErrorKind, DomainErrorOptions } from '@app/shared-kernel';
import { RenderInput, RenderJob } from '../../application/render-ports';
import { DocumentRenderer } from './document-renderer';
import { lowerRenderThreadPriority } from './render-thread-priority';

/** A refusal crosses the thread boundary as data: a thrown error would arrive without its code. */
export type RenderOutcome =
  | { ok: true; body: Uint8Array }
  | { ok: false; refusal: { kind: DomainErrorKind; code: string; message: string; options: DomainErrorOptions } };

lowerRenderThreadPriority();

const renderer = new DocumentRenderer();

async function produce(input: RenderInput, format: RenderJob['format']): Promise<Buffer> {
  if (format === 'svg') return Buffer.from(renderer.svg(input));
  if (format === 'layout') {
    renderer.layout(input);
    return Buffer.alloc(0);
  }
  return renderer.render(input, format);
}

/** The render worker's entry (render-pool.ts): runs on a worker thread, off the event loop. */
export default async function renderTask({ input, format }: RenderJob): Promise<RenderOutcome> {
  try {
    const body = await produce(input, format);
    return { ok: true, body };
  } catch (error) {
    if (!(error instanceof DomainError)) throw error;
    const { kind, code, message, param, details, errors } = error;
    return { ok: false, refusal: { kind, code, message, options: { param, details, errors } } };
  }
}

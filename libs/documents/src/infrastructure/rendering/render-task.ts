import { DomainError, DomainErrorKind, DomainErrorOptions } from '@app/shared-kernel';
import { DocumentRenderer, RenderFormat, RenderInput } from './document-renderer';

/** What a render worker is asked: one document in one format (`svg`: the first-page thumbnail). */
export interface RenderJob {
  input: RenderInput;
  format: RenderFormat | 'svg';
}

/** A refusal crosses the thread boundary as data: a thrown error would arrive without its code. */
export type RenderOutcome =
  | { ok: true; body: Uint8Array }
  | { ok: false; refusal: { kind: DomainErrorKind; code: string; message: string; options: DomainErrorOptions } };

const renderer = new DocumentRenderer();

/** The render worker's entry (render-pool.ts): runs on a worker thread, off the event loop. */
export default async function renderTask({ input, format }: RenderJob): Promise<RenderOutcome> {
  try {
    const body = format === 'svg' ? Buffer.from(renderer.svg(input)) : await renderer.render(input, format);
    return { ok: true, body };
  } catch (error) {
    if (!(error instanceof DomainError)) throw error;
    const { kind, code, message, param, details, errors } = error;
    return { ok: false, refusal: { kind, code, message, options: { param, details, errors } } };
  }
}

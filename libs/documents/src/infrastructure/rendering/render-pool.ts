import { availableParallelism } from 'node:os';
import { extname, join } from 'node:path';
import { OnModuleDestroy } from '@nestjs/common';
import { DomainError } from '@app/shared-kernel';
import { Piscina } from 'piscina';
import { RenderJob, TemplateRenderer } from '../../application/render-ports';
import type { DocumentType, TemplateKind } from '../../domain/document-template';
import type { TemplateDocument } from '../../domain/template-document';
import type { RenderOutcome } from './render-task';
import { DocumentErrors } from '../../domain/document-errors';

/** What one render may spend on its worker thread; past either, its caller gets a 503 and the thread is replaced. */
export interface RenderBudgetLimits {
  milliseconds: number;
  heapMegabytes: number;
  /** Renders waiting for a thread; more are refused at once rather than queued behind them. */
  queued: number;
}

export const RENDER_BUDGET: RenderBudgetLimits = {
  milliseconds: 15_000,
  heapMegabytes: 256,
  queued: 32,
};

const fromSources = extname(__filename) === '.ts';

/**
 * The TemplateRenderer: renders on worker threads, off the event loop, so a heavy document costs its caller time on a render
 * thread while every other request goes on being served. A render over its time or heap budget is aborted and refused with 503.
 */
export class RenderPool implements TemplateRenderer, OnModuleDestroy {
  private readonly pool: Piscina<RenderJob, RenderOutcome>;

  constructor(private readonly budget: RenderBudgetLimits = RENDER_BUDGET) {
    this.pool = new Piscina({
      filename: join(__dirname, `render-task${extname(__filename)}`),
      minThreads: 0,
      // Half the cores at most (one on a 2-core machine): the rest stay with the event loop and the
      // database, so renders queue behind each other rather than slow every other tenant's requests.
      maxThreads: Math.max(1, Math.floor(availableParallelism() / 2)),
      idleTimeout: 60_000,
      maxQueue: budget.queued,
      resourceLimits: { maxOldGenerationSizeMb: budget.heapMegabytes },
      // Run from TypeScript sources (jest, the from-source server), a worker compiles them as the main thread does.
      execArgv: fromSources ? ['--require', join(__dirname, '../../../../../test/support/register-ts.js')] : [],
    });
  }

  async render(job: RenderJob): Promise<Buffer> {
    let outcome: RenderOutcome;
    try {
      outcome = await this.pool.run(job, { signal: AbortSignal.timeout(this.budget.milliseconds) });
    } catch (error) {
      throw overBudget(error, this.budget) ?? error;
    }
    if (!outcome.ok)
      // The worker's refusal crossed the thread as data; it was created from DocumentErrors there.
      // eslint-disable-next-line no-restricted-syntax
      throw new DomainError(outcome.refusal.kind, outcome.refusal.code, outcome.refusal.message, outcome.refusal.options);
    return Buffer.from(outcome.body.buffer, outcome.body.byteOffset, outcome.body.byteLength);
  }

  /**
   * Lays the document out as each of its document types, as a preview would, so that a template
   * past the render limits (or with a footer too tall) is refused when it is saved, not each
   * time it is drawn.
   */
  async checkBounds(
    document: TemplateDocument,
    kind: TemplateKind,
    anchorKey: string | null,
    documentTypes: DocumentType[],
  ): Promise<void> {
    for (const documentType of documentTypes)
      await this.render({ input: { document, kind, anchorKey, documentType }, format: 'layout' });
  }

  async onModuleDestroy(): Promise<void> {
    await this.pool.destroy();
  }
}

function overBudget(error: unknown, budget: RenderBudgetLimits): DomainError | undefined {
  const { name, code, message } = error as { name?: string; code?: string; message?: string };
  const refusal = (spent: 'time' | 'memory' | 'queue', limit: number, text: string) =>
    DocumentErrors.RENDER_BUDGET_EXCEEDED.create(text, { details: { budget: spent, limit, retry_after_seconds: 5 } });
  if (name === 'AbortError' || name === 'TimeoutError')
    return refusal(
      'time',
      budget.milliseconds,
      `The render ran past its time budget of ${budget.milliseconds} ms and was stopped.`,
    );
  if (code === 'ERR_WORKER_OUT_OF_MEMORY')
    return refusal(
      'memory',
      budget.heapMegabytes,
      `The render ran past its memory budget of ${budget.heapMegabytes} MB and was stopped.`,
    );
  if (message === 'Task queue is at limit')
    return refusal('queue', budget.queued, `${budget.queued} renders are already waiting for a render thread: retry shortly.`);
  return undefined;
}

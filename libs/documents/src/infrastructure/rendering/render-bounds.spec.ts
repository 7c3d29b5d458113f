import { readdirSync, readFileSync } from 'node:fs';
import { DomainError } from '@app/shared-kernel';
import { SYSTEM_TEMPLATES } from '../../domain/system-templates';
import { TemplateDocument } from '../../domain/template-document';
import { RenderInput } from '../../application/render-ports';
import { DocumentRenderer } from './document-renderer';
import { RENDER_LIMITS } from './render-limits';
import { RenderPool } from './render-pool';
import { RENDER_THREAD_NICER_BY } from './render-thread-priority';

const invoice = SYSTEM_TEMPLATES.find((template) => template.id === '00000000-0000-4000-8000-000000000001')!;
const input = (document: TemplateDocument, lineCount?: number): RenderInput => ({
  document,
  kind: 'printed',
  anchorKey: null,
  documentType: 'invoice',
  lineCount,
});

function refusal(run: () => unknown): DomainError {
  try {
    run();
  } catch (error) {
    if (error instanceof DomainError) return error;
    throw error;
  }
  throw new Error('expected a refusal');
}

/** Small type on small margins, every column, striped: the most drawing operations a page can hold. */
const dense: TemplateDocument = {
  ...invoice.document,
  theme: { ...invoice.document.theme, font_size: 6, page: { size: 'A4', margins: { top: 18, right: 18, bottom: 18, left: 18 } } },
  blocks: [
    {
      type: 'line_items',
      columns: (['description', 'quantity', 'unit_price', 'tax_rate', 'amount'] as const).map((key) => ({
        key,
        label: null,
        width: null,
      })),
      striped: true,
    },
  ],
};

describe('render bounds', () => {
  const renderer = new DocumentRenderer();
  it('refuses a layout past the drawing-operation limit before it reaches the page limit', () => {
    const error = refusal(() => renderer.layout(input(dense, 1800)));
    expect(error.code).toBe('RENDER_LIMIT_EXCEEDED');
    expect(error.details).toEqual({ limit: RENDER_LIMITS.operations, measure: 'drawing operations' });
    expect(renderer.layout(input(dense, 200)).pages.length).toBeLessThan(RENDER_LIMITS.pages);
  });

  it('lays out only the first page of a thumbnail, without a page count it does not know', () => {
    const svg = renderer.svg(input(dense, 1800));
    expect(svg).toContain('>Page 1</text>');
    expect(svg).not.toContain('Page 1 of');
  });
});

describe('render pool', () => {
  it('renders on a worker thread the same bytes as in-process', async () => {
    const pool = new RenderPool();
    try {
      const job = input(invoice.document);
      expect(
        Buffer.compare(await pool.render({ input: job, format: 'pdf' }), await new DocumentRenderer().render(job, 'pdf')),
      ).toBe(0);
      const refused = await pool.render({ input: input(dense, 1800), format: 'pdf' }).catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(DomainError);
      expect((refused as DomainError).code).toBe('RENDER_LIMIT_EXCEEDED');
    } finally {
      await pool.onModuleDestroy();
    }
  });

  /** Each thread of this process with its nice value (Linux: /proc/self/task/<tid>/stat, field 19). */
  const threadNiceness = (): Map<number, number> =>
    new Map(
      readdirSync('/proc/self/task').map((tid) => {
        const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
        return [Number(tid), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16])];
      }),
    );

  it('runs renders on threads nicer than the event loop, which keeps its own priority', async () => {
    const pool = new RenderPool();
    try {
      const before = threadNiceness();
      const main = before.get(process.pid)!;
      await pool.render({ input: input(invoice.document), format: 'svg' });
      const renderThreads = [...threadNiceness()].filter(([tid]) => !before.has(tid));
      expect(renderThreads.map(([, nice]) => nice)).toContain(Math.min(19, main + RENDER_THREAD_NICER_BY));
      expect(threadNiceness().get(process.pid)).toBe(main);
    } finally {
      await pool.onModuleDestroy();
    }
  });

  it('stops a render past its time budget and refuses it with 503 RENDER_BUDGET_EXCEEDED', async () => {
    const pool = new RenderPool({ milliseconds: 1, heapMegabytes: 256, queued: 4 });
    try {
      const refused = (await pool
        .render({ input: input(dense, 1000), format: 'pdf' })
        .catch((error: unknown) => error)) as DomainError;
      expect({ kind: refused.kind, code: refused.code, details: refused.details }).toEqual({
        kind: 'unavailable',
        code: 'RENDER_BUDGET_EXCEEDED',
        details: { budget: 'time', limit: 1, retry_after_seconds: 5 },
      });
    } finally {
      await pool.onModuleDestroy();
    }
  });
});

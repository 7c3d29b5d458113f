import { SYSTEM_TEMPLATE_IDS, systemTemplate, SYSTEM_TEMPLATES } from '../../domain/system-templates';
import { TemplateDocument } from '../../domain/template-document';
import { PreviewCache } from '../../application/previews/preview-cache';
import { RenderInput } from '../../application/render-ports';
import { DocumentRenderer } from './document-renderer';
import { printable } from './display-list';
import { LayoutEngine } from './layout';
import { newMeasurer } from './pdf-writer';
import { formatAmount, sampleDocument } from './sample-data';
import Big from 'big.js';
import { png, pngDataUri } from '../../../../../test/support/png';

const invoice = systemTemplate(SYSTEM_TEMPLATE_IDS.invoice)!;
const input = (overrides: Partial<RenderInput> = {}): RenderInput => ({
  document: invoice.document,
  kind: 'printed',
  anchorKey: null,
  documentType: 'invoice',
  ...overrides,
});

describe('DocumentRenderer', () => {
  const renderer = new DocumentRenderer();

  it('renders the same PDF bytes on every run and from every instance (fixed dates, embedded subset fonts)', async () => {
    const first = await renderer.render(input(), 'pdf');
    const second = await new DocumentRenderer().render(input(), 'pdf');
    expect(first.subarray(0, 5).toString('latin1')).toBe('%PDF-');
    expect(Buffer.compare(first, second)).toBe(0);
    const text = first.toString('latin1');
    expect(text).toMatch(/\/FontFile2/);
    expect(text).toContain('D:20260101000000Z');
  });

  it('renders the same bytes whatever was rendered before (the shared word caches change no output)', async () => {
    const serif: TemplateDocument = { ...invoice.document, theme: { ...invoice.document.theme, font_family: 'DejaVu Serif' } };
    const cold = await renderer.render(input({ document: serif, documentType: 'invoice' }), 'pdf');
    for (const template of SYSTEM_TEMPLATES) {
      await renderer.render(
        {
          document: template.document,
          kind: template.kind,
          anchorKey: template.anchorKey,
          documentType: template.documentTypes[0],
          lineCount: 40,
        },
        'pdf',
      );
    }
    const warm = await renderer.render(input({ document: serif, documentType: 'invoice' }), 'pdf');
    expect(Buffer.compare(cold, warm)).toBe(0);
  });

  it('embeds a PNG logo with transparency, and leaves out one it could not read instead of failing', async () => {
    const withLogo = (logo: string) =>
      input({ document: { ...invoice.document, branding: { ...invoice.document.branding, logo } } });
    const embedded = await renderer.render(withLogo(pngDataUri()), 'pdf');
    expect(embedded.toString('latin1')).toContain('/Subtype /Image');
    expect(renderer.svg(withLogo(pngDataUri()))).toContain('<image ');
    const broken = `data:image/png;base64,${png().subarray(0, 40).toString('base64')}`;
    const without = await renderer.render(withLogo(broken), 'pdf');
    expect(without.toString('latin1')).not.toContain('/Subtype /Image');
    expect(renderer.svg(withLogo(broken))).not.toContain('<image ');
  });

  it('lays out every system template on one page, and a long invoice over several with the header repeated', () => {
    for (const template of SYSTEM_TEMPLATES) {
      const layout = renderer.layout({
        document: template.document,
        kind: template.kind,
        anchorKey: template.anchorKey,
        documentType: template.documentTypes[0],
      });
      expect({ template: template.name, pages: layout.pages.length }).toEqual({ template: template.name, pages: 1 });
    }
    const long = renderer.layout(input({ lineCount: 45 }));
    expect(long.pages.length).toBe(3);
    for (const page of long.pages) {
      const texts = page.filter((op) => op.kind === 'text').map((op) => (op.kind === 'text' ? op.text : ''));
      expect(texts).toContain('Description');
      expect(texts).toContain(`Page ${long.pages.indexOf(page) + 1} of 3`);
    }
  });

  it('keeps every text run inside the page margins', () => {
    const layout = renderer.layout(input({ lineCount: 30 }));
    const { margins } = invoice.document.theme.page;
    for (const op of layout.pages.flat()) {
      if (op.kind !== 'text') continue;
      expect(op.x).toBeGreaterThanOrEqual(margins.left - 0.01);
      expect(op.x + op.width).toBeLessThanOrEqual(layout.width - margins.right + 0.01);
      expect(op.y).toBeGreaterThanOrEqual(0);
      expect(op.y + op.size).toBeLessThanOrEqual(layout.height);
    }
  });

  it('draws the SVG thumbnail from the first page of the same layout, escaped and free of control characters', () => {
    const document: TemplateDocument = {
      ...invoice.document,
      blocks: [{ type: 'free_text', text: 'a < b & "c" \u0000\u0007 ok', align: 'left' }],
    };
    const svg = renderer.svg(input({ document }));
    expect(svg.startsWith('<svg xmlns="http://www.w3.org/2000/svg" width="240"')).toBe(true);
    expect(svg).toContain('>a &lt; b &amp; &quot;c&quot; ok</text>');
    expect([...svg].some((character) => character.charCodeAt(0) < 9)).toBe(false);
    const layout = renderer.layout(input({ document }));
    expect(svg.match(/<text /g)!.length).toBe(layout.pages[0].filter((op) => op.kind === 'text').length);
  });

  it('wraps words to the width, breaking a word longer than a line', () => {
    const face = { key: 'DejaVuSans', family: 'DejaVu Sans' as const, weight: 'normal' as const, file: 'DejaVuSans.ttf' };
    const engine = new LayoutEngine(invoice.document, newMeasurer([face]));
    expect(engine.wrap('one two three', face, 10, 1000)).toEqual(['one two three']);
    expect(engine.wrap('one two three', face, 10, 40)).toEqual(['one', 'two', 'three']);
    const broken = engine.wrap('x'.repeat(60), face, 10, 100);
    expect(broken.length).toBeGreaterThan(1);
    expect(broken.join('')).toBe('x'.repeat(60));
    expect(engine.wrap('a\nb', face, 10, 100)).toEqual(['a', 'b']);

    // A 4,000-character word is cut by bisection over short prefixes, not shaped whole again and again.
    const measured: number[] = [];
    const real = newMeasurer([face]);
    const counting = new LayoutEngine(invoice.document, {
      width: (text, f, size) => (measured.push(text.length), real.width(text, f, size)),
      ascent: (f, size) => real.ascent(f, size),
    });
    const lines = counting.wrap('x'.repeat(4000), face, 10, 200);
    expect(lines.join('')).toBe('x'.repeat(4000));
    expect(lines.slice(0, -1).every((line) => real.width(line, face, 10) <= 200 && real.width(`${line}x`, face, 10) > 200)).toBe(
      true,
    );
    expect(measured.length).toBeLessThan(lines.length * 12);
    expect(Math.max(...measured.slice(1))).toBeLessThanOrEqual(101);
    expect(printable('a\tb\u0001c')).toBe('a bc');
  });

  it('renders an e-mail as subject and plain text, and as HTML with every value escaped', () => {
    const mail = systemTemplate('00000000-0000-4000-8000-000000000102')!;
    const rendered = { document: mail.document, kind: mail.kind, anchorKey: mail.anchorKey, documentType: 'email' as const };
    expect(renderer.text(rendered)).toBe(
      'Subject: Payment for invoice INV-2026-0042 failed\n\nHello Acme Corporation,\n\nwe could not collect €1,428.00 for invoice ' +
        'INV-2026-0042: Your card was declined.\n\nPlease update your payment method: https://billing.example/i/INV-2026-0042\n\n' +
        'Northwind Analytics GmbH\n\n-- \n' +
        `${mail.document.footer.legal_text}\n`,
    );
    expect(renderer.html(rendered)).toContain('<title>Payment for invoice INV-2026-0042 failed</title>');
  });
});

describe('sample data', () => {
  it('computes lines, tax per rate and totals with decimals, not floats', () => {
    const data = sampleDocument('invoice');
    expect(data.lines.map((line) => line.amount.toFixed(2))).toEqual(['890.00', '294.00', '220.80', '28.04', '450.00', '80.00']);
    expect(data.subtotal.toFixed(2)).toBe('1962.84');
    expect(data.taxes.map((tax) => [tax.rate.toString(), tax.base.toFixed(2), tax.amount.toFixed(2)])).toEqual([
      ['0.19', '1882.84', '357.74'],
      ['0.07', '80.00', '5.60'],
    ]);
    expect(data.total.toFixed(2)).toBe('2326.18');
    expect(formatAmount(new Big('1234567.5'))).toBe('1,234,567.50');
    expect(formatAmount(new Big('-0.5'))).toBe('-0.50');
  });
});

describe('PreviewCache', () => {
  it('returns the stored bytes until the TTL passes', () => {
    let now = 0;
    const cache = new PreviewCache(() => now);
    cache.set('a', Buffer.from('pdf'));
    expect(cache.get('a')?.toString()).toBe('pdf');
    now = PreviewCache.TTL_MS - 1;
    expect(cache.get('a')?.toString()).toBe('pdf');
    now = PreviewCache.TTL_MS + 1;
    expect(cache.get('a')).toBeUndefined();
  });

  it('evicts the least recently used entry beyond its bound', () => {
    const cache = new PreviewCache(() => 0);
    for (let index = 0; index < PreviewCache.MAX_ENTRIES; index += 1) cache.set(`k${index}`, Buffer.from('x'));
    expect(cache.get('k0')).toBeDefined();
    cache.set('new', Buffer.from('y'));
    expect(cache.get('k0')).toBeDefined();
    expect(cache.get('k1')).toBeUndefined();
    expect(cache.get('new')).toBeDefined();
  });
});

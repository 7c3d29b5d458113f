import request from 'supertest';
import { DataSource } from 'typeorm';
import { expectError, expectFieldError } from '../support/auth-helpers';
import { PreviewCache } from '../../libs/documents/src/application/previews/preview-cache';
import { templateDocument } from '../support/document-helpers';
import { pngDataUri } from '../support/png';
import { createKey, createTenant, idem, TestTenant } from '../support/tenants';
import { createTestApp, TestApp } from '../support/test-app';

const SYSTEM_INVOICE = '00000000-0000-4000-8000-000000000001';
const SYSTEM_EMAIL = '00000000-0000-4000-8000-000000000101';

/** Collects a binary body (PDF) as a Buffer; an error body as its JSON. */
function binary(response: request.Response, callback: (error: Error | null, body: unknown) => void): void {
  const chunks: Buffer[] = [];
  response.on('data', (chunk: Buffer) => chunks.push(chunk));
  response.on('end', () => {
    const body = Buffer.concat(chunks);
    callback(null, /json/.test(String(response.headers['content-type'])) ? JSON.parse(body.toString('utf8')) : body);
  });
}

/** The amplifier: one line per character pair, as many as a block's 4,000 characters allow. */
const LINE_FLOOD = 'a\n'.repeat(2000);
/** A footer of 500 short lines: taller than any page. */
const TALL_FOOTER = { legal_text: 'a\n'.repeat(499) + 'a', show_page_numbers: true };
/** Prose filling a free_text block to its 4,000 characters: the heaviest text a block may hold. */
const PROSE = 'Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt. '
  .repeat(44)
  .slice(0, 4000);

describe('Document render bounds (issue 19: one tenant cannot stall the others)', () => {
  let t: TestApp;
  let db: DataSource;
  let tenant: TestTenant;

  beforeAll(async () => {
    t = await createTestApp({ env: { PDF_PREVIEW_RATE_LIMIT_PER_MINUTE: '0' } });
    db = t.app.get(DataSource);
    tenant = await createTenant(t);
  });
  afterAll(() => t.close());

  const post = (path: string, body: object) =>
    t.http.post(path).set('Authorization', tenant.auth).set('Idempotency-Key', idem()).send(body);
  const preview = (id: string, body: object = {}) =>
    t.http.post(`/v1/document_templates/${id}/preview`).set('Authorization', tenant.auth).buffer(true).parse(binary).send(body);
  const templateRows = async () =>
    (await db.query('SELECT id, version, template_json FROM document_templates ORDER BY id')) as unknown[];
  /** Stores a template directly: a row written before these bounds existed. */
  const storeRaw = async (document: object) => {
    const created = await post('/v1/document_templates', { name: 'Stored before the bounds', template_json: templateDocument() });
    expect(created.status).toBe(201);
    await db.query('UPDATE document_templates SET template_json = $2 WHERE id = $1', [created.body.id, JSON.stringify(document)]);
    return created.body.id as string;
  };

  it('refuses a footer taller than a quarter of the page on create, update and preview (400, pointing at the field), storing nothing', async () => {
    const before = await templateRows();
    const created = await post('/v1/document_templates', {
      name: 'Tall footer',
      template_json: templateDocument({ footer: TALL_FOOTER }),
    });
    expectFieldError(created, 'template_json/footer/legal_text', 'OUT_OF_RANGE');
    expect(created.body.error.message).toMatch(/at most a quarter of the page/);
    expect(await templateRows()).toEqual(before);

    const own = await post('/v1/document_templates', { name: 'Short footer', template_json: templateDocument() });
    expect(own.status).toBe(201);
    const stored = await templateRows();
    const updated = await t.http
      .patch(`/v1/document_templates/${own.body.id}`)
      .set('Authorization', tenant.auth)
      .send({ expected_version: 1, template_json: templateDocument({ footer: TALL_FOOTER }) });
    expectFieldError(updated, 'template_json/footer/legal_text', 'OUT_OF_RANGE');
    expect(await templateRows()).toEqual(stored);

    const previewed = await preview(SYSTEM_INVOICE, { template_json: templateDocument({ footer: TALL_FOOTER }) });
    expectFieldError(previewed, 'template_json/footer/legal_text', 'OUT_OF_RANGE');
  });

  it('refuses a render past the page limit with 422 RENDER_LIMIT_EXCEEDED naming the limit (printed blocks and e-mail bodies)', async () => {
    const flood = templateDocument({
      blocks: Array.from({ length: 16 }, () => ({ type: 'free_text', text: LINE_FLOOD, align: 'left' })),
    });
    const refused = await preview(SYSTEM_INVOICE, { template_json: flood });
    const error = expectError(refused, 422, 'RENDER_LIMIT_EXCEEDED');
    expect(error.type).toBe('business_rule_error');
    expect(error.details).toEqual({ limit: 50, measure: 'pages' });
    expect(error.message).toContain('50 pages');

    // Refused up front too: such a template is never stored.
    const before = await templateRows();
    const created = await post('/v1/document_templates', { name: 'Flood', template_json: flood });
    expect(expectError(created, 422, 'RENDER_LIMIT_EXCEEDED').param).toBe('template_json');
    const own = await post('/v1/document_templates', { name: 'Calm', template_json: templateDocument() });
    expect(own.status).toBe(201);
    const stored = await templateRows();
    const updated = await t.http
      .patch(`/v1/document_templates/${own.body.id}`)
      .set('Authorization', tenant.auth)
      .send({ expected_version: 1, template_json: flood });
    expectError(updated, 422, 'RENDER_LIMIT_EXCEEDED');
    expect(await templateRows()).toEqual(stored);
    expect(stored).toHaveLength((before as unknown[]).length + 1);

    const email = (await t.http.get(`/v1/document_templates/${SYSTEM_EMAIL}`).set('Authorization', tenant.auth).expect(200)).body;
    const body = 'a\n'.repeat(9999) + 'a';
    const mail = await preview(SYSTEM_EMAIL, {
      template_json: { ...email.template_json, email: { ...email.template_json.email, body } },
    });
    expect(expectError(mail, 422, 'RENDER_LIMIT_EXCEEDED').details).toEqual({ limit: 50, measure: 'pages' });

    // One such block is a long document, not an attack: it still renders.
    const one = await preview(SYSTEM_INVOICE, {
      template_json: templateDocument({ blocks: [{ type: 'free_text', text: LINE_FLOOD, align: 'left' }] }),
    });
    expect(one.status).toBe(200);
    expect(one.body.subarray(0, 5).toString()).toBe('%PDF-');
  });

  it('answers a thumbnail of a stored flood from its first page alone, and refuses its PDF with 422', async () => {
    const id = await storeRaw(
      templateDocument({ blocks: Array.from({ length: 40 }, () => ({ type: 'free_text', text: LINE_FLOOD, align: 'left' })) }),
    );
    const thumbnail = await t.http.get(`/v1/document_templates/${id}/thumbnail`).set('Authorization', tenant.auth).buffer(true);
    expect(thumbnail.status).toBe(200);
    expect(thumbnail.headers['content-type']).toMatch(/^image\/svg\+xml/);
    expect(String(thumbnail.body)).toContain('>Page 1</text>');
    expectError(await preview(id), 422, 'RENDER_LIMIT_EXCEEDED');
  });

  it('refuses a stored footer taller than the page at render time instead of drawing a page per line', async () => {
    const id = await storeRaw(templateDocument({ footer: TALL_FOOTER }));
    expectFieldError(await preview(id), 'template_json/footer/legal_text', 'OUT_OF_RANGE');
    expectFieldError(
      await t.http.get(`/v1/document_templates/${id}/thumbnail`).set('Authorization', tenant.auth),
      'template_json/footer/legal_text',
      'OUT_OF_RANGE',
    );
  });

  it('refuses a logo of more than a megapixel (a 2048 × 2048 all-zero PNG) with 400 pointing at the logo', async () => {
    const huge = pngDataUri({ width: 2048, height: 2048, rgba: [0, 0, 0, 0] });
    const document = templateDocument({ branding: { company_name: null, logo: huge, accent_bar: false } });
    const before = await templateRows();
    expectFieldError(
      await post('/v1/document_templates', { name: 'Huge logo', template_json: document }),
      'template_json/branding/logo',
      'INVALID_VALUE',
    );
    expectFieldError(await preview(SYSTEM_INVOICE, { template_json: document }), 'template_json/branding/logo', 'INVALID_VALUE');
    expect(await templateRows()).toEqual(before);
  });

  it('embeds a logo once however many header blocks show it', async () => {
    const logo = pngDataUri({ width: 64, height: 64 });
    const document = templateDocument({
      branding: { company_name: null, logo, accent_bar: false },
      blocks: Array.from({ length: 40 }, () => ({ type: 'header', title: 'Invoice', show_logo: true, align: 'left' })),
    });
    const pdf = await preview(SYSTEM_INVOICE, { template_json: document });
    expect(pdf.status).toBe(200);
    // One image and its alpha mask (an RGBA PNG), not one per header block.
    expect(pdf.body.toString('latin1').match(/\/Subtype \/Image/g)).toHaveLength(2);
    // Byte-stable on repeat (the preview cache is keyed on the document, so ask with another type order).
    const again = await preview(SYSTEM_INVOICE, { template_json: document, document_types: ['invoice', 'quote'] });
    expect(Buffer.compare(again.body, pdf.body)).toBe(0);
  });

  it('keeps answering /health/live while the heaviest allowed render runs (the render is off the event loop)', async () => {
    // Forty blocks of prose: about 36 pages, near the page limit (a logo would be decoded asynchronously, letting the loop breathe).
    const heavy = templateDocument({
      blocks: Array.from({ length: 40 }, () => ({ type: 'free_text', text: PROSE, align: 'left' })),
    });
    const finished: string[] = [];
    let live: Promise<request.Response> | undefined;
    // The preview looks in its cache right before it renders: that is when liveness is asked.
    const lookUp = PreviewCache.prototype.get;
    const probe = jest.spyOn(PreviewCache.prototype, 'get').mockImplementation(function (this: PreviewCache, key: string) {
      live ??= t.http.get('/health/live').then((response) => {
        finished.push('live');
        return response;
      });
      return lookUp.call(this, key);
    });
    try {
      const rendered = await preview(SYSTEM_INVOICE, { template_json: heavy });
      finished.push('render');
      expect(rendered.status).toBe(200);
      expect((await live!).status).toBe(200);
    } finally {
      probe.mockRestore();
    }
    expect(finished).toEqual(['live', 'render']);
  });
});

describe('Render budget (per organization): thumbnails spend it as previews do', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp({ env: { PDF_PREVIEW_RATE_LIMIT_PER_MINUTE: '2' } });
  });
  afterAll(() => t.close());

  it('counts each rendered thumbnail; a read-only key past the budget gets 429 RATE_LIMITED, a 304 costs nothing', async () => {
    const tenant = await createTenant(t);
    const reader = await createKey(t, tenant.auth, { name: 'reader', scopes: ['document_templates:read'] });
    const auth = `Bearer ${reader.secret}`;
    const db = t.app.get(DataSource);
    const [{ second }] = await db.query('SELECT extract(second FROM now())::float AS second');
    if (second > 50) await new Promise((resolve) => setTimeout(resolve, (61 - second) * 1000));
    const thumbnail = (id: string, etag?: string) => {
      const call = t.http.get(`/v1/document_templates/${id}/thumbnail`).set('Authorization', auth);
      return etag ? call.set('If-None-Match', etag) : call;
    };
    const first = await thumbnail('00000000-0000-4000-8000-000000000001');
    expect(first.status).toBe(200);
    expect(first.headers['ratelimit-policy']).toContain('"pdf_preview";q=2;w=60');
    expect((await thumbnail('00000000-0000-4000-8000-000000000001', first.headers.etag)).status).toBe(304);
    expect((await thumbnail('00000000-0000-4000-8000-000000000002')).status).toBe(200);
    const limited = await thumbnail('00000000-0000-4000-8000-000000000003');
    const error = expectError(limited, 429, 'RATE_LIMITED');
    expect(error.details).toEqual(expect.objectContaining({ limit: 2, scope: 'organization' }));
    expect(Number(limited.headers['retry-after'])).toBeGreaterThanOrEqual(1);
  });
});

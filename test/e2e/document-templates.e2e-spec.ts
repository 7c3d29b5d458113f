import { ManualClock } from '@app/shared-kernel';
import { randomUUID } from 'node:crypto';
import { extractText, getDocumentProxy } from 'unpdf';
import { DataSource } from 'typeorm';
import { expectError, expectFieldError } from '../support/auth-helpers';
import { ISO, UUID } from '../support/expectations';
import { templateDocument } from '../support/document-helpers';
import { pngDataUri } from '../support/png';
import { createTenant, idem, TestTenant } from '../support/tenants';
import { createTestApp, TestApp } from '../support/test-app';
import { binary } from '../support/binary-body';

const SYSTEM = {
  invoice: '00000000-0000-4000-8000-000000000001',
  credit_note: '00000000-0000-4000-8000-000000000002',
  quote: '00000000-0000-4000-8000-000000000003',
  invoiceFinalized: '00000000-0000-4000-8000-000000000101',
};
const SYSTEM_COUNT = 9;

/** The template fields of the contract, in the order the API renders them. */
const TEMPLATE_FIELDS = [
  'id',
  'object',
  'name',
  'description',
  'document_types',
  'status',
  'is_system',
  'version',
  'schema_version',
  'anchor_key',
  'anchor_name',
  'default_for',
  'copied_from_id',
  'template_json',
  'created_at',
  'updated_at',
];

async function pdfText(pdf: Buffer): Promise<{ text: string; pages: number }> {
  const document = await getDocumentProxy(new Uint8Array(pdf));
  const { text, totalPages } = await extractText(document, { mergePages: true });
  return { text, pages: totalPages };
}

describe('Document templates', () => {
  const clock = new ManualClock(new Date('2026-11-01T09:00:00.000Z'));
  let t: TestApp;
  let db: DataSource;
  let tenant: TestTenant;
  let stranger: TestTenant;

  beforeAll(async () => {
    t = await createTestApp({ clock, env: { PDF_PREVIEW_RATE_LIMIT_PER_MINUTE: '0' } });
    db = t.app.get(DataSource);
    tenant = await createTenant(t);
    stranger = await createTenant(t);
  });
  afterAll(() => t.close());

  const tick = () => clock.advance(1000);
  const post = (path: string, body: object, auth = tenant.auth) =>
    t.http.post(path).set('Authorization', auth).set('Idempotency-Key', idem()).send(body);
  const patch = (path: string, body: object, auth = tenant.auth) => t.http.patch(path).set('Authorization', auth).send(body);
  const get = (path: string, auth = tenant.auth) => t.http.get(path).set('Authorization', auth);
  const create = async (body: object, auth = tenant.auth) => {
    tick();
    const response = await post('/v1/document_templates', body, auth);
    expect(response.status).toBe(201);
    return response.body;
  };
  const preview = (id: string, body: object = {}, auth = tenant.auth) =>
    t.http.post(`/v1/document_templates/${id}/preview`).set('Authorization', auth).buffer(true).parse(binary).send(body);

  describe('create, get, update, delete, copy', () => {
    it('creates a printed template from the system default layout when no document is sent (201, Location, every field)', async () => {
      const response = await post('/v1/document_templates', { name: 'My invoice' });
      expect(response.status).toBe(201);
      const body = response.body;
      expect(Object.keys(body)).toEqual(TEMPLATE_FIELDS);
      expect(response.headers.location).toBe(`/v1/document_templates/${body.id}`);
      expect(body).toEqual(
        expect.objectContaining({
          id: expect.stringMatching(UUID),
          object: 'document_template',
          name: 'My invoice',
          description: null,
          document_types: ['invoice'],
          status: 'active',
          is_system: false,
          version: 1,
          schema_version: 2,
          anchor_key: null,
          anchor_name: null,
          default_for: [],
          copied_from_id: null,
          created_at: expect.stringMatching(ISO),
        }),
      );
      const system = await get(`/v1/document_templates/${SYSTEM.invoice}`).expect(200);
      expect(body.template_json).toEqual(system.body.template_json);
      expect((await get(`/v1/document_templates/${body.id}`).expect(200)).body).toEqual(body);
    });

    it('creates a template for several document types with its own document, and an e-mail template as a draft', async () => {
      const printed = await create({
        name: 'Invoice & quote',
        description: 'Serif, Letter',
        document_types: ['quote', 'invoice', 'quote'],
        template_json: templateDocument(),
      });
      expect(printed).toEqual(
        expect.objectContaining({ document_types: ['invoice', 'quote'], status: 'active', template_json: templateDocument() }),
      );
      const email = await create({ name: 'Friendly invoice mail', document_types: ['email'], anchor_key: 'invoice.finalized' });
      expect(email).toEqual(
        expect.objectContaining({
          document_types: ['email'],
          status: 'draft',
          anchor_key: 'invoice.finalized',
          anchor_name: 'Invoice finalized',
        }),
      );
      expect(email.template_json.email.subject).toBe('Invoice {{ invoice.number }} from {{ organization.name }}');
    });

    it('refuses a document that breaks the schema, pointing at the offending place, and stores nothing', async () => {
      const before = await db.query('SELECT count(*)::int AS n FROM document_templates');
      const blocks = templateDocument().blocks;
      const cases: Array<[object, string, string]> = [
        [{ blocks: [...blocks.slice(0, 3), { type: 'signature' }] }, 'template_json/blocks/3/type', 'INVALID_VALUE'],
        [{ blocks: [{ title: 'x' }] }, 'template_json/blocks/0/type', 'INVALID_VALUE'],
        [
          { theme: { ...templateDocument().theme, colors: { ...templateDocument().theme.colors, primary: 'red' } } },
          'template_json/theme/colors/primary',
          'INVALID_VALUE',
        ],
        [
          { theme: { ...templateDocument().theme, font_family: 'Comic Sans' } },
          'template_json/theme/font_family',
          'INVALID_VALUE',
        ],
        [{ theme: { ...templateDocument().theme, font_size: 99 } }, 'template_json/theme/font_size', 'OUT_OF_RANGE'],
        [{ footer: { legal_text: null } }, 'template_json/footer/show_page_numbers', 'REQUIRED'],
        [{ colour: 'blue' }, 'template_json/colour', 'UNKNOWN_PARAMETER'],
        [
          { blocks: [{ type: 'header', title: 'x', show_logo: 'yes', align: 'left' }] },
          'template_json/blocks/0/show_logo',
          'INVALID_TYPE',
        ],
        [{ blocks: [] }, 'template_json/blocks', 'OUT_OF_RANGE'],
        [
          { branding: { company_name: null, logo: 'data:image/png;base64,AAAA', accent_bar: true } },
          'template_json/branding/logo',
          'INVALID_VALUE',
        ],
        [{ email: { subject: 'Hi', preheader: null, body: 'Hello' } }, 'template_json/email', 'NOT_ALLOWED'],
      ];
      for (const [overrides, param, code] of cases) {
        const response = await post('/v1/document_templates', { name: 'Broken', template_json: templateDocument(overrides) });
        expect({ param, status: response.status, code: response.body.error?.code }).toEqual({
          param,
          status: 400,
          code: 'VALIDATION_ERROR',
        });
        expect({ param, errors: response.body.error.errors }).toEqual({
          param,
          errors: expect.arrayContaining([expect.objectContaining({ param, code })]),
        });
      }
      expect(await db.query('SELECT count(*)::int AS n FROM document_templates')).toEqual(before);
    });

    it('refuses kinds that do not fit: e-mail beside printed types, anchor_key on printed, unknown kinds and variables', async () => {
      expectFieldError(
        await post('/v1/document_templates', { name: 'x', document_types: ['invoice', 'email'] }),
        'document_types',
        'INVALID_VALUE',
      );
      expectFieldError(
        await post('/v1/document_templates', { name: 'x', document_types: ['receipt'] }),
        'document_types',
        'INVALID_VALUE',
      );
      expectFieldError(
        await post('/v1/document_templates', { name: 'x', document_types: [] }),
        'document_types',
        'INVALID_VALUE',
      );
      expectFieldError(
        await post('/v1/document_templates', { name: 'x', anchor_key: 'invoice.finalized' }),
        'anchor_key',
        'NOT_ALLOWED',
      );
      expectFieldError(await post('/v1/document_templates', { name: 'x', document_types: ['email'] }), 'anchor_key', 'REQUIRED');
      expectFieldError(
        await post('/v1/document_templates', { name: 'x', document_types: ['email'], anchor_key: 'invoice.paid' }),
        'anchor_key',
        'INVALID_VALUE',
      );
      const mail = (body: string, subject = 'Invoice {{ invoice.number }}') =>
        post('/v1/document_templates', {
          name: 'x',
          document_types: ['email'],
          anchor_key: 'wallet.low_balance',
          template_json: templateDocument({ blocks: [], email: { subject, preheader: null, body } }),
        });
      expectFieldError(await mail('Your balance is {{ wallet.balance }}'), 'template_json/email/subject', 'UNKNOWN_VARIABLE');
      expectFieldError(await mail('Hello {{ customer.name }', 'Low'), 'template_json/email/body', 'INVALID_SYNTAX');
      expectFieldError(await post('/v1/document_templates', { name: '' }), 'name', 'OUT_OF_RANGE');
      expectFieldError(await post('/v1/document_templates', { name: 'x', version: 3 }), 'version', 'UNKNOWN_PARAMETER');
      expect((await mail('Balance {{wallet.balance}} below {{ wallet.threshold }}', 'Low').expect(201)).body.status).toBe(
        'draft',
      );
    });

    it('updates with expected_version: omitted fields unchanged, a stale version is 409 CONFLICT with details.current_version', async () => {
      const template = await create({ name: 'Versioned', description: 'first', template_json: templateDocument() });
      expectFieldError(
        await patch(`/v1/document_templates/${template.id}`, { name: 'No version' }),
        'expected_version',
        'INVALID_TYPE',
      );
      tick();
      const renamed = await patch(`/v1/document_templates/${template.id}`, { expected_version: 1, name: 'Renamed' }).expect(200);
      expect(renamed.body).toEqual({
        ...template,
        name: 'Renamed',
        version: 2,
        updated_at: expect.stringMatching(ISO),
      });
      expect(renamed.body.updated_at).not.toBe(template.updated_at);
      const stale = expectError(
        await patch(`/v1/document_templates/${template.id}`, { expected_version: 1, name: 'Lost' }),
        409,
        'CONFLICT',
      );
      expect(stale.details).toEqual({ current_version: 2 });
      const document = templateDocument({ footer: { legal_text: null, show_page_numbers: false } });
      const changed = await patch(`/v1/document_templates/${template.id}`, {
        expected_version: 2,
        description: null,
        document_types: ['credit_note', 'quote'],
        template_json: document,
      }).expect(200);
      expect(changed.body).toEqual(
        expect.objectContaining({
          name: 'Renamed',
          description: null,
          document_types: ['credit_note', 'quote'],
          template_json: document,
          version: 3,
        }),
      );
      expectFieldError(
        await patch(`/v1/document_templates/${template.id}`, { expected_version: 3, document_types: ['email'] }),
        'document_types',
        'KIND_IMMUTABLE',
      );
      expectFieldError(
        await patch(`/v1/document_templates/${template.id}`, {
          expected_version: 3,
          template_json: templateDocument({ blocks: [{ type: 'table' }] }),
        }),
        'template_json/blocks/0/type',
        'INVALID_VALUE',
      );
      expect((await get(`/v1/document_templates/${template.id}`).expect(200)).body.version).toBe(3);
    });

    it('lets only one of two racing updates with the same expected_version through', async () => {
      const template = await create({ name: 'Raced' });
      const [a, b] = await Promise.all([
        patch(`/v1/document_templates/${template.id}`, { expected_version: 1, name: 'A' }),
        patch(`/v1/document_templates/${template.id}`, { expected_version: 1, name: 'B' }),
      ]);
      expect([a.status, b.status].sort()).toEqual([200, 409]);
      const loser = a.status === 409 ? a : b;
      expect(loser.body.error).toEqual(expect.objectContaining({ code: 'CONFLICT', details: { current_version: 2 } }));
      const winner = a.status === 200 ? a : b;
      expect((await get(`/v1/document_templates/${template.id}`).expect(200)).body.name).toBe(winner.body.name);
    });

    it('moves printed templates between active and archived only', async () => {
      const template = await create({ name: 'Statuses' });
      const archived = await patch(`/v1/document_templates/${template.id}`, { expected_version: 1, status: 'archived' }).expect(
        200,
      );
      expect(archived.body.status).toBe('archived');
      const refused = expectError(
        await patch(`/v1/document_templates/${template.id}`, { expected_version: 2, status: 'published' }),
        409,
        'INVALID_STATUS_TRANSITION',
      );
      expect(refused.details).toEqual({ from: 'archived', to: 'published', allowed: ['active'] });
      expect(
        (await patch(`/v1/document_templates/${template.id}`, { expected_version: 2, status: 'active' }).expect(200)).body.status,
      ).toBe('active');
      expectFieldError(
        await patch(`/v1/document_templates/${template.id}`, { expected_version: 3, status: 'deleted' }),
        'status',
        'INVALID_VALUE',
      );
    });

    it('moves e-mail templates draft ↔ published, to archived, and archived back to draft; one published per mail kind', async () => {
      const first = await create({ name: 'Top-up mail', document_types: ['email'], anchor_key: 'wallet.top_up_succeeded' });
      const second = await create({ name: 'Top-up mail 2', document_types: ['email'], anchor_key: 'wallet.top_up_succeeded' });
      const path = `/v1/document_templates/${first.id}`;
      expect((await patch(path, { expected_version: 1, status: 'published' }).expect(200)).body.status).toBe('published');
      const taken = expectError(
        await patch(`/v1/document_templates/${second.id}`, { expected_version: 1, status: 'published' }),
        409,
        'ANCHOR_ALREADY_PUBLISHED',
      );
      expect(taken.details).toEqual({ anchor_key: 'wallet.top_up_succeeded', template_id: first.id });
      expect((await patch(path, { expected_version: 2, status: 'draft' }).expect(200)).body.status).toBe('draft');
      expect((await patch(path, { expected_version: 3, status: 'archived' }).expect(200)).body.status).toBe('archived');
      const refused = expectError(
        await patch(path, { expected_version: 4, status: 'published' }),
        409,
        'INVALID_STATUS_TRANSITION',
      );
      expect(refused.details).toEqual({ from: 'archived', to: 'published', allowed: ['draft'] });
      expectError(await patch(path, { expected_version: 4, status: 'active' }), 409, 'INVALID_STATUS_TRANSITION');
      expect((await patch(path, { expected_version: 4, status: 'draft' }).expect(200)).body.status).toBe('draft');
      expect(
        (await patch(`/v1/document_templates/${second.id}`, { expected_version: 1, status: 'published' }).expect(200)).body
          .status,
      ).toBe('published');
      expect(
        (await patch(`/v1/document_templates/${second.id}`, { expected_version: 2, status: 'archived' }).expect(200)).body.status,
      ).toBe('archived');
    });

    it('refuses to update or delete a system template (409 SYSTEM_TEMPLATE_READ_ONLY) and changes nothing', async () => {
      const before = await get(`/v1/document_templates/${SYSTEM.invoice}`).expect(200);
      const update = expectError(
        await patch(`/v1/document_templates/${SYSTEM.invoice}`, { expected_version: 1, name: 'Mine' }),
        409,
        'SYSTEM_TEMPLATE_READ_ONLY',
      );
      expect(update.details).toEqual({ template_id: SYSTEM.invoice });
      expectError(
        await t.http.delete(`/v1/document_templates/${SYSTEM.invoice.toUpperCase()}`).set('Authorization', tenant.auth),
        409,
        'SYSTEM_TEMPLATE_READ_ONLY',
      );
      expect((await get(`/v1/document_templates/${SYSTEM.invoice}`).expect(200)).body).toEqual(before.body);
      expect(before.body).toEqual(
        expect.objectContaining({
          is_system: true,
          status: 'active',
          version: 1,
          schema_version: 2,
          name: 'Standard invoice',
          created_at: '2026-01-01T00:00:00.000Z',
        }),
      );
    });

    it('soft-deletes: 204, then 404 everywhere, and the row stays for the record', async () => {
      const template = await create({ name: 'Doomed' });
      await t.http.delete(`/v1/document_templates/${template.id}`).set('Authorization', tenant.auth).expect(204);
      expectError(await get(`/v1/document_templates/${template.id}`), 404, 'DOCUMENT_TEMPLATE_NOT_FOUND');
      expectError(
        await t.http.delete(`/v1/document_templates/${template.id}`).set('Authorization', tenant.auth),
        404,
        'DOCUMENT_TEMPLATE_NOT_FOUND',
      );
      expectError(
        await patch(`/v1/document_templates/${template.id}`, { expected_version: 2, name: 'x' }),
        404,
        'DOCUMENT_TEMPLATE_NOT_FOUND',
      );
      expectError(await post(`/v1/document_templates/${template.id}/copy`, {}), 404, 'DOCUMENT_TEMPLATE_NOT_FOUND');
      const [row] = await db.query('SELECT deleted_at, version FROM document_templates WHERE id = $1', [template.id]);
      expect(row.deleted_at).toBeInstanceOf(Date);
      expect(row.version).toBe(2);
      const listed = await get('/v1/document_templates?limit=200').expect(200);
      expect(listed.body.data.map((row: { id: string }) => row.id)).not.toContain(template.id);
    });

    it('copies a template, and a system template from its built-in baseline, into writable templates', async () => {
      const source = await create({ name: 'Original', document_types: ['invoice', 'quote'], template_json: templateDocument() });
      tick();
      const copy = await post(`/v1/document_templates/${source.id}/copy`, {}).expect(201);
      expect(copy.headers.location).toBe(`/v1/document_templates/${copy.body.id}`);
      expect(copy.body).toEqual(
        expect.objectContaining({
          name: 'Copy of Original',
          document_types: ['invoice', 'quote'],
          status: 'active',
          version: 1,
          is_system: false,
          copied_from_id: source.id,
          template_json: source.template_json,
        }),
      );
      expect(copy.body.id).not.toBe(source.id);
      const fromSystem = await post(`/v1/document_templates/${SYSTEM.invoiceFinalized}/copy`, {
        name: 'Our invoice mail',
      }).expect(201);
      const system = await get(`/v1/document_templates/${SYSTEM.invoiceFinalized}`).expect(200);
      expect(fromSystem.body).toEqual(
        expect.objectContaining({
          name: 'Our invoice mail',
          status: 'draft',
          anchor_key: 'invoice.finalized',
          is_system: false,
          copied_from_id: SYSTEM.invoiceFinalized,
          template_json: system.body.template_json,
        }),
      );
      const renamed = await patch(`/v1/document_templates/${fromSystem.body.id}`, {
        expected_version: 1,
        name: 'Edited copy',
      }).expect(200);
      expect(renamed.body.name).toBe('Edited copy');
      expectError(await post(`/v1/document_templates/${randomUUID()}/copy`, {}), 404, 'DOCUMENT_TEMPLATE_NOT_FOUND');
      expectFieldError(await post(`/v1/document_templates/${source.id}/copy`, { name: 7 }), 'name', 'INVALID_TYPE');
    });

    it('upgrades a document stored in schema version 1 on read, and stores it upgraded on the next write', async () => {
      const id = randomUUID();
      const v1 = {
        font: 'serif',
        accent_color: '#0a7d4f',
        page_size: 'LETTER',
        company_name: 'Legacy GmbH',
        blocks: [
          { type: 'header', title: 'Invoice' },
          { type: 'items', columns: ['description', 'amount'] },
          { type: 'totals', tax_summary: false },
        ],
        footer_text: 'Legacy legal text',
      };
      await db.query(
        `INSERT INTO document_templates (organization_id, workspace_id, id, name, kind, document_types, status, template_json, schema_version,
           version, created_at, updated_at)
         VALUES ($1, $2, $3, 'Legacy', 'printed', '{invoice}', 'active', $4, 1, 1, now(), now())`,
        [tenant.organization_id, tenant.liveWorkspaceId, id, JSON.stringify(v1)],
      );
      const read = await get(`/v1/document_templates/${id}`).expect(200);
      expect(read.body.schema_version).toBe(2);
      expect(read.body.template_json).toEqual(
        expect.objectContaining({
          theme: expect.objectContaining({
            font_family: 'DejaVu Serif',
            colors: expect.objectContaining({ primary: '#0a7d4f' }),
            page: expect.objectContaining({ size: 'Letter' }),
          }),
          branding: { company_name: 'Legacy GmbH', logo: null, accent_bar: true },
          blocks: [
            { type: 'header', title: 'Invoice', show_logo: true, align: 'left' },
            {
              type: 'line_items',
              columns: [
                { key: 'description', label: null, width: null },
                { key: 'amount', label: null, width: null },
              ],
              striped: false,
            },
            { type: 'totals', show_tax_summary: false },
          ],
          footer: { legal_text: 'Legacy legal text', show_page_numbers: true },
        }),
      );
      const [stored] = await db.query('SELECT schema_version FROM document_templates WHERE id = $1', [id]);
      expect(stored.schema_version).toBe(1);
      await patch(`/v1/document_templates/${id}`, { expected_version: 1, name: 'Legacy, upgraded' }).expect(200);
      const [written] = await db.query('SELECT schema_version, template_json FROM document_templates WHERE id = $1', [id]);
      expect(written).toEqual({ schema_version: 2, template_json: read.body.template_json });
      const rendered = await preview(id).expect(200);
      expect((await pdfText(rendered.body)).text).toContain('Legacy legal text');
    });

    it('records every change in the audit log', async () => {
      const template = await create({ name: 'Audited' });
      await patch(`/v1/document_templates/${template.id}`, { expected_version: 1, name: 'Audited 2' }).expect(200);
      await t.http.put(`/v1/document_templates/${template.id}/defaults/invoice`).set('Authorization', tenant.auth).expect(200);
      await t.http.delete(`/v1/document_templates/${template.id}/defaults/invoice`).set('Authorization', tenant.auth).expect(200);
      await t.http.delete(`/v1/document_templates/${template.id}`).set('Authorization', tenant.auth).expect(204);
      const rows = await db.query('SELECT action FROM audit_events WHERE resource_id = $1 ORDER BY occurred_at, action', [
        template.id,
      ]);
      expect(rows.map((row: { action: string }) => row.action).sort()).toEqual(
        [
          'document_template.created',
          'document_template.updated',
          'document_template.default_marked',
          'document_template.default_cleared',
          'document_template.deleted',
        ].sort(),
      );
    });
  });

  describe('defaults per printed document type', () => {
    let workspace: TestTenant;
    const put = (id: string, type: string) =>
      t.http.put(`/v1/document_templates/${id}/defaults/${type}`).set('Authorization', workspace.auth);
    const clear = (id: string, type: string) =>
      t.http.delete(`/v1/document_templates/${id}/defaults/${type}`).set('Authorization', workspace.auth);

    beforeAll(async () => {
      workspace = await createTenant(t);
    });

    it('marks, replaces and clears the slot; only the holder clears it; system templates are valid targets', async () => {
      const a = await create({ name: 'A', document_types: ['invoice', 'quote'] }, workspace.auth);
      const b = await create({ name: 'B' }, workspace.auth);
      const marked = await put(a.id, 'invoice').expect(200);
      expect(marked.body).toEqual(expect.objectContaining({ id: a.id, default_for: ['invoice'], version: 1 }));
      expect((await put(a.id, 'quote').expect(200)).body.default_for).toEqual(['invoice', 'quote']);
      expect((await put(b.id, 'invoice').expect(200)).body.default_for).toEqual(['invoice']);
      expect((await get(`/v1/document_templates/${a.id}`, workspace.auth).expect(200)).body.default_for).toEqual(['quote']);
      const refused = expectError(await clear(a.id, 'invoice'), 409, 'NOT_DEFAULT_HOLDER');
      expect(refused.details).toEqual({ document_type: 'invoice', holder_template_id: b.id });
      const cleared = await clear(b.id, 'invoice').expect(200);
      expect(cleared.body).toEqual(expect.objectContaining({ id: b.id, default_for: [] }));
      expectError(await clear(b.id, 'invoice'), 409, 'NOT_DEFAULT_HOLDER');
      expectError(await clear(SYSTEM.invoice, 'invoice'), 409, 'NOT_DEFAULT_HOLDER');

      const system = await put(SYSTEM.credit_note, 'credit_note').expect(200);
      expect(system.body).toEqual(
        expect.objectContaining({ id: SYSTEM.credit_note, is_system: true, default_for: ['credit_note'] }),
      );
      expect((await get(`/v1/document_templates/${SYSTEM.credit_note}`, workspace.auth).expect(200)).body.default_for).toEqual([
        'credit_note',
      ]);
      // Defaults are the workspace's: another organization still sees no slot taken.
      expect((await get(`/v1/document_templates/${SYSTEM.credit_note}`, stranger.auth).expect(200)).body.default_for).toEqual([]);
      expect((await clear(SYSTEM.credit_note, 'credit_note').expect(200)).body.default_for).toEqual([]);
    });

    it('refuses slots a template cannot fill and document types without slots', async () => {
      const invoiceOnly = await create({ name: 'Invoice only' }, workspace.auth);
      const wrongType = expectError(await put(invoiceOnly.id, 'quote'), 409, 'DEFAULT_NOT_ALLOWED');
      expect(wrongType.details).toEqual({
        reason: 'document_type_not_in_template',
        document_type: 'quote',
        document_types: ['invoice'],
      });
      expectError(await put(SYSTEM.quote, 'invoice'), 409, 'DEFAULT_NOT_ALLOWED');
      expectFieldError(await put(invoiceOnly.id, 'email'), 'document_type', 'INVALID_VALUE');
      expectFieldError(await put(invoiceOnly.id, 'receipt'), 'document_type', 'INVALID_VALUE');
      expectError(await put(randomUUID(), 'invoice'), 404, 'DOCUMENT_TEMPLATE_NOT_FOUND');
      expectError(await clear(randomUUID(), 'invoice'), 404, 'DOCUMENT_TEMPLATE_NOT_FOUND');
      await patch(`/v1/document_templates/${invoiceOnly.id}`, { expected_version: 1, status: 'archived' }, workspace.auth).expect(
        200,
      );
      expect(expectError(await put(invoiceOnly.id, 'invoice'), 409, 'DEFAULT_NOT_ALLOWED').details.reason).toBe('archived');
      expectError(await put(invoiceOnly.id, 'invoice').send({ document_type: 'invoice' }), 400, 'VALIDATION_ERROR');
    });

    it('releases a slot when its holder is archived, re-typed or deleted (rendering falls back to the system default)', async () => {
      const archived = await create({ name: 'To archive' }, workspace.auth);
      await put(archived.id, 'invoice').expect(200);
      const after = await patch(
        `/v1/document_templates/${archived.id}`,
        { expected_version: 1, status: 'archived' },
        workspace.auth,
      ).expect(200);
      expect(after.body.default_for).toEqual([]);
      const retyped = await create({ name: 'To re-type', document_types: ['invoice', 'quote'] }, workspace.auth);
      await put(retyped.id, 'invoice').expect(200);
      await put(retyped.id, 'quote').expect(200);
      const narrowed = await patch(
        `/v1/document_templates/${retyped.id}`,
        { expected_version: 1, document_types: ['quote'] },
        workspace.auth,
      ).expect(200);
      expect(narrowed.body.default_for).toEqual(['quote']);
      await t.http.delete(`/v1/document_templates/${retyped.id}`).set('Authorization', workspace.auth).expect(204);
      const slots = await db.query('SELECT document_type, template_id FROM document_template_defaults WHERE workspace_id = $1', [
        workspace.liveWorkspaceId,
      ]);
      expect(slots).toEqual([]);
    });
  });

  describe('list', () => {
    let workspace: TestTenant;
    const list = (query: string, headers: Record<string, string> = {}) =>
      t.http.get(`/v1/document_templates${query}`).set('Authorization', workspace.auth).set(headers);
    const ids: Record<string, string> = {};

    beforeAll(async () => {
      workspace = await createTenant(t);
      ids.invoice = (await create({ name: 'L invoice' }, workspace.auth)).id;
      ids.both = (await create({ name: 'L invoice+quote', document_types: ['invoice', 'quote'] }, workspace.auth)).id;
      ids.credit = (await create({ name: 'L credit', document_types: ['credit_note'] }, workspace.auth)).id;
      ids.mail = (await create({ name: 'L mail', document_types: ['email'], anchor_key: 'quote.sent' }, workspace.auth)).id;
      tick();
      await patch(`/v1/document_templates/${ids.credit}`, { expected_version: 1, status: 'archived' }, workspace.auth).expect(
        200,
      );
    });

    it('prepends the system defaults to the first page, then the workspace’s templates newest first', async () => {
      const response = await list('').expect(200);
      const rows = response.body.data;
      expect(rows.slice(0, SYSTEM_COUNT).every((row: any) => row.is_system)).toBe(true);
      expect(rows.slice(0, 3).map((row: any) => row.id)).toEqual([SYSTEM.invoice, SYSTEM.credit_note, SYSTEM.quote]);
      expect(rows.slice(SYSTEM_COUNT).map((row: any) => row.id)).toEqual([ids.credit, ids.mail, ids.both, ids.invoice]);
      expect(response.body.pagination).toEqual({ cursor: null, has_more: false });
      expect(response.body.counts).toBeUndefined();
      for (const row of rows) {
        expect(Object.keys(row)).toEqual(TEMPLATE_FIELDS);
        if (row.document_types.includes('email')) expect(row.anchor_name).toEqual(expect.any(String));
        else
          expect({ anchor_key: row.anchor_key, anchor_name: row.anchor_name }).toEqual({ anchor_key: null, anchor_name: null });
      }
      const ascending = await list('?sort=updated_at:asc').expect(200);
      expect(ascending.body.data.slice(SYSTEM_COUNT).map((row: any) => row.id)).toEqual([
        ids.invoice,
        ids.both,
        ids.mail,
        ids.credit,
      ]);
      expect((await list('?sort=updated_at').expect(200)).body.data.map((row: any) => row.id)).toEqual(
        rows.map((row: any) => row.id),
      );
    });

    it('pages with signed cursors bound to the filters and the order; system defaults only on the first page', async () => {
      const first = await list('?limit=2').expect(200);
      expect(first.body.data).toHaveLength(SYSTEM_COUNT + 2);
      expect(first.body.pagination.has_more).toBe(true);
      const second = await list(`?limit=2&cursor=${first.body.pagination.cursor}`).expect(200);
      expect(second.body.data.map((row: any) => row.id)).toEqual([ids.both, ids.invoice]);
      expect(second.body.pagination).toEqual({ cursor: null, has_more: false });
      expectError(await list(`?limit=2&sort=updated_at:asc&cursor=${first.body.pagination.cursor}`), 400, 'INVALID_CURSOR');
      expectError(await list(`?limit=2&status=active&cursor=${first.body.pagination.cursor}`), 400, 'INVALID_CURSOR');
    });

    it('filters by document_type, status and anchor_key (which implies email), and counts by document type', async () => {
      const byType = (await list('?document_type=quote').expect(200)).body.data.map((row: any) => row.id);
      expect(byType).toEqual([SYSTEM.quote, ids.both]);
      const archived = (await list('?status=archived').expect(200)).body.data.map((row: any) => row.id);
      expect(archived).toEqual([ids.credit]);
      const published = (await list('?status=published&document_type=email').expect(200)).body.data;
      expect(published.every((row: any) => row.is_system && row.status === 'published')).toBe(true);
      expect(published).toHaveLength(6);
      const anchored = (await list('?anchor_key=quote.sent').expect(200)).body.data;
      expect(anchored.map((row: any) => [row.anchor_key, row.is_system])).toEqual([
        ['quote.sent', true],
        ['quote.sent', false],
      ]);
      expect((await list('?anchor_key=quote.sent&document_type=email').expect(200)).body.data).toHaveLength(2);
      expectFieldError(await list('?anchor_key=quote.sent&document_type=invoice'), 'document_type', 'INVALID_VALUE');
      const counted = await list('?counts=document_type&document_type=invoice').expect(200);
      expect(counted.body.counts).toEqual({
        document_type: { all: SYSTEM_COUNT + 4, invoice: 3, credit_note: 2, quote: 2, email: 7 },
      });
      expect((await list('?counts=document_type&status=active').expect(200)).body.counts).toEqual({
        document_type: { all: 5, invoice: 3, credit_note: 1, quote: 2, email: 0 },
      });
    });

    it('refuses unknown sorts, filter values and parameters', async () => {
      expectError(await list('?sort=name'), 400, 'INVALID_SORT');
      expectError(await list('?sort=updated_at:sideways'), 400, 'INVALID_SORT');
      expectFieldError(await list('?document_type=receipt'), 'document_type', 'INVALID_VALUE');
      expectFieldError(await list('?status=deleted'), 'status', 'INVALID_VALUE');
      expectFieldError(await list('?anchor_key=invoice.paid'), 'anchor_key', 'INVALID_VALUE');
      expectFieldError(await list('?counts=status'), 'counts', 'INVALID_VALUE');
      expectFieldError(await list('?colour=red'), 'colour', 'UNKNOWN_PARAMETER');
    });

    it('names mail kinds in the request’s locale (German, French), English otherwise', async () => {
      const anchorName = async (language?: string) => {
        const response = await list('?anchor_key=invoice.payment_failed', language ? { 'Accept-Language': language } : {}).expect(
          200,
        );
        return [response.body.data[0].anchor_name, response.headers['content-language']];
      };
      expect(await anchorName()).toEqual(['Invoice payment failed', 'en']);
      expect(await anchorName('de-DE,de;q=0.9,en;q=0.8')).toEqual(['Zahlung der Rechnung fehlgeschlagen', 'de']);
      expect(await anchorName('ja, fr;q=0.5')).toEqual(['Échec du paiement de la facture', 'fr']);
      expect(await anchorName('ja')).toEqual(['Invoice payment failed', 'en']);
      const single = await get(`/v1/document_templates/${ids.mail}`, workspace.auth).set('Accept-Language', 'fr').expect(200);
      expect(single.body.anchor_name).toBe('Devis envoyé');
      const kinds = await get('/v1/document_templates/email_kinds', workspace.auth).set('Accept-Language', 'de').expect(200);
      expect(kinds.body.data.map((kind: any) => kind.anchor_key)).toEqual([
        'invoice.finalized',
        'invoice.payment_failed',
        'credit_note.created',
        'quote.sent',
        'wallet.low_balance',
        'wallet.top_up_succeeded',
      ]);
      expect(kinds.body.data[4]).toEqual(
        expect.objectContaining({
          object: 'email_kind',
          name: 'Guthaben niedrig',
          variables: expect.arrayContaining([{ name: 'wallet.balance', description: 'Verfügbares Guthaben', example: '€18.40' }]),
        }),
      );
    });
  });

  describe('PDF preview', () => {
    it('renders the template with sample data in its fonts, byte-identical on repeat, the second from the cache', async () => {
      const template = await create({
        name: 'Preview me',
        document_types: ['invoice', 'credit_note'],
        template_json: templateDocument(),
      });
      const first = await preview(template.id).expect(200);
      expect(first.headers['content-type']).toBe('application/pdf');
      expect(first.headers['preview-cache']).toBe('miss');
      expect(first.body.subarray(0, 5).toString('latin1')).toBe('%PDF-');
      const again = await preview(template.id).expect(200);
      expect(again.headers['preview-cache']).toBe('hit');
      expect(Buffer.compare(again.body, first.body)).toBe(0);
      const { text, pages } = await pdfText(first.body);
      expect(pages).toBe(1);
      for (const expected of [
        'Rechnung',
        'INV-2026-0042',
        'Ελληνικά & Кириллица Ltd',
        'Acme Corporation',
        'Ευχαριστούμε · Спасибо · Merci',
        'Sitz der Gesellschaft: Berlin',
        'Page 1 of 1',
        'Leistung',
        '€2,326.18',
      ]) {
        expect({ expected, found: text.includes(expected) }).toEqual({ expected, found: true });
      }
      // The fonts are embedded: a viewer needs none of its own.
      expect(first.body.toString('latin1')).toMatch(/\/FontFile2/);
      expect(first.body.toString('latin1')).toMatch(/DejaVuSerif/);
      const logo = pngDataUri({ width: 64, height: 24 });
      const branded = await preview(template.id, {
        template_json: templateDocument({ branding: { company_name: 'Logo AG', logo, accent_bar: true } }),
      }).expect(200);
      expect(branded.body.toString('latin1')).toContain('/Subtype /Image');
      expectFieldError(
        await t.http
          .post(`/v1/document_templates/${template.id}/preview`)
          .set('Authorization', tenant.auth)
          .send({
            template_json: templateDocument({
              branding: { company_name: null, logo: pngDataUri({ filterByte: 9 }), accent_bar: true },
            }),
          }),
        'template_json/branding/logo',
        'INVALID_VALUE',
      );
      const credit = await preview(template.id, { document_type: 'CREDIT_NOTE' }).expect(200);
      expect((await pdfText(credit.body)).text).toContain('CN-2026-0007');
    });

    it('renders the unsaved template_json of the request, and refuses one that breaks the schema', async () => {
      const rendered = await preview(SYSTEM.invoice, {
        document_types: ['quote'],
        document_type: 'quote',
        template_json: templateDocument({ blocks: [{ type: 'free_text', text: 'Draft only — not saved', align: 'left' }] }),
      }).expect(200);
      expect((await pdfText(rendered.body)).text).toContain('Draft only — not saved');
      const system = await preview(SYSTEM.invoice).expect(200);
      expect((await pdfText(system.body)).text).toContain('Thank you for your business.');
      const refused = await t.http
        .post(`/v1/document_templates/${SYSTEM.invoice}/preview`)
        .set('Authorization', tenant.auth)
        .send({ template_json: templateDocument({ blocks: [{ type: 'header' }] }) });
      expectFieldError(refused, 'template_json/blocks/0/title', 'REQUIRED');
      expectFieldError(
        await t.http
          .post(`/v1/document_templates/${SYSTEM.invoice}/preview`)
          .set('Authorization', tenant.auth)
          .send({ document_type: 'quote' }),
        'document_type',
        'NOT_IN_DOCUMENT_TYPES',
      );
      expectFieldError(
        await t.http
          .post(`/v1/document_templates/${SYSTEM.invoice}/preview`)
          .set('Authorization', tenant.auth)
          .send({ document_type: 'receipt' }),
        'document_type',
        'INVALID_VALUE',
      );
      expectFieldError(
        await t.http
          .post(`/v1/document_templates/${SYSTEM.invoice}/preview`)
          .set('Authorization', tenant.auth)
          .send({ document_types: ['email'] }),
        'document_types',
        'KIND_IMMUTABLE',
      );
    });

    it('accepts an Idempotency-Key without requiring one, and replays the same bytes under it', async () => {
      const key = idem();
      const send = () =>
        t.http
          .post(`/v1/document_templates/${SYSTEM.quote}/preview`)
          .set('Authorization', tenant.auth)
          .set('Idempotency-Key', key)
          .buffer(true)
          .parse(binary)
          .send({ document_type: 'quote' });
      const first = await send().expect(200);
      const replay = await send().expect(200);
      expect(replay.headers['idempotent-replayed']).toBe('true');
      expect(replay.headers['content-type']).toBe('application/pdf');
      expect(Buffer.compare(replay.body, first.body)).toBe(0);
      const reused = await t.http
        .post(`/v1/document_templates/${SYSTEM.quote}/preview`)
        .set('Authorization', tenant.auth)
        .set('Idempotency-Key', key)
        .send({});
      expectError(reused, 422, 'IDEMPOTENCY_KEY_REUSED');
    });

    it('gives the HTML and plain-text renders on Accept; e-mail templates render subject and body with example values', async () => {
      const mail = await create({
        name: 'Low balance',
        document_types: ['email'],
        anchor_key: 'wallet.low_balance',
        template_json: templateDocument({
          blocks: [],
          email: {
            subject: 'Balance <low>: {{ wallet.balance }}',
            preheader: 'Top up soon',
            body: 'Hi {{ customer.name }},\n\nbelow {{ wallet.threshold }} & falling.',
          },
        }),
      });
      const text = await t.http
        .post(`/v1/document_templates/${mail.id}/preview`)
        .set('Authorization', tenant.auth)
        .set('Accept', 'text/plain')
        .send({});
      expect(text.status).toBe(200);
      expect(text.headers['content-type']).toBe('text/plain; charset=utf-8');
      expect(text.text).toBe(
        'Subject: Balance <low>: €18.40\n\nHi Acme Corporation,\n\nbelow €20.00 & falling.\n\n-- \nSitz der Gesellschaft: Berlin\n',
      );
      const html = await t.http
        .post(`/v1/document_templates/${mail.id}/preview`)
        .set('Authorization', tenant.auth)
        .set('Accept', 'text/html')
        .send({});
      expect(html.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(html.text).toContain('<title>Balance &lt;low&gt;: €18.40</title>');
      expect(html.text).toContain('<p style="margin:0 0 14px">below €20.00 &amp; falling.</p>');
      expect(html.text).toContain('Top up soon');
      const pdf = await preview(mail.id).expect(200);
      expect((await pdfText(pdf.body)).text).toContain('Balance <low>: €18.40');
      const printed = await t.http
        .post(`/v1/document_templates/${SYSTEM.invoice}/preview`)
        .set('Authorization', tenant.auth)
        .set('Accept', 'text/html, application/pdf;q=0.5')
        .send({});
      expect(printed.text).toContain('<h1>Invoice</h1>');
      const printedText = await t.http
        .post(`/v1/document_templates/${SYSTEM.invoice}/preview`)
        .set('Authorization', tenant.auth)
        .set('Accept', 'text/plain')
        .send({});
      expect(printedText.text).toContain('INV-2026-0042');
    });

    it('lets the format query parameter choose the render over Accept, and refuses an unknown format', async () => {
      const render = (format: string, accept: string) =>
        t.http
          .post(`/v1/document_templates/${SYSTEM.invoice}/preview?format=${format}`)
          .set('Authorization', tenant.auth)
          .set('Accept', accept)
          .buffer(true)
          .parse(binary)
          .send({});
      const html = await render('html', 'application/pdf').expect(200);
      expect(html.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(html.body.toString('utf8')).toContain('<h1>Invoice</h1>');
      const text = await render('text', '*/*').expect(200);
      expect(text.headers['content-type']).toBe('text/plain; charset=utf-8');
      expect(text.body.toString('utf8')).toContain('INV-2026-0042');
      const pdf = await render('pdf', 'text/html').expect(200);
      expect(pdf.headers['content-type']).toBe('application/pdf');
      expect(pdf.body.subarray(0, 5).toString('latin1')).toBe('%PDF-');
      expectError(
        await t.http
          .post(`/v1/document_templates/${SYSTEM.invoice}/preview?format=docx`)
          .set('Authorization', tenant.auth)
          .send({}),
        400,
        'VALIDATION_ERROR',
      );
    });

    it('answers 404 for an unknown or deleted template', async () => {
      expectError(
        await t.http.post(`/v1/document_templates/${randomUUID()}/preview`).set('Authorization', tenant.auth).send({}),
        404,
        'DOCUMENT_TEMPLATE_NOT_FOUND',
      );
      expectError(
        await t.http.post('/v1/document_templates/not-a-uuid/preview').set('Authorization', tenant.auth).send({}),
        404,
        'DOCUMENT_TEMPLATE_NOT_FOUND',
      );
    });
  });

  describe('SVG thumbnail', () => {
    it('draws the first page with a strong ETag keyed on updated_at; If-None-Match answers 304 without a body', async () => {
      const template = await create({ name: 'Thumb', template_json: templateDocument() });
      const path = `/v1/document_templates/${template.id}/thumbnail`;
      const first = await get(path).buffer(true).expect(200);
      expect(first.headers['content-type']).toBe('image/svg+xml; charset=utf-8');
      const etag: string = first.headers.etag;
      expect(etag).toMatch(/^"[0-9a-f]{32}"$/);
      const svg = first.body.toString('utf8');
      expect(svg.startsWith('<svg xmlns="http://www.w3.org/2000/svg" width="240"')).toBe(true);
      expect(svg).toContain('>Rechnung</text>');
      expect(svg).toContain('Ελληνικά &amp; Кириллица Ltd');
      expect(svg).toContain('viewBox="0 0 612 792"');
      const again = await get(path).buffer(true).expect(200);
      expect(again.headers.etag).toBe(etag);
      expect(again.body.toString('utf8')).toBe(svg);
      const notModified = await get(path).set('If-None-Match', etag);
      expect(notModified.status).toBe(304);
      expect(notModified.text ?? '').toBe('');
      expect(notModified.headers.etag).toBe(etag);
      expect((await get(path).set('If-None-Match', `"other", W/${etag}`)).status).toBe(304);
      expect((await get(path).set('If-None-Match', '"other"')).status).toBe(200);
      tick();
      await patch(`/v1/document_templates/${template.id}`, {
        expected_version: 1,
        template_json: templateDocument({ blocks: [{ type: 'free_text', text: 'Changed', align: 'left' }] }),
      }).expect(200);
      const changed = await get(path).set('If-None-Match', etag).buffer(true).expect(200);
      expect(changed.headers.etag).not.toBe(etag);
      expect(changed.body.toString('utf8')).toContain('>Changed</text>');
      const system = await get(`/v1/document_templates/${SYSTEM.invoiceFinalized}/thumbnail`).buffer(true).expect(200);
      expect(system.body.toString('utf8')).toContain('Invoice INV-2026-0042 from Northwind Analytics GmbH');
      expectError(await get(`/v1/document_templates/${randomUUID()}/thumbnail`), 404, 'DOCUMENT_TEMPLATE_NOT_FOUND');
    });
  });

  describe('tenancy', () => {
    it('answers another organization, and another workspace of the same one, 404 on every route naming the template, and changes nothing', async () => {
      const mine = await create({ name: 'Private', template_json: templateDocument() });
      await t.http.put(`/v1/document_templates/${mine.id}/defaults/invoice`).set('Authorization', tenant.auth).expect(200);
      const before = await db.query('SELECT * FROM document_templates WHERE id = $1', [mine.id]);
      for (const auth of [stranger.auth, tenant.sandboxAuth]) {
        const path = `/v1/document_templates/${mine.id}`;
        const attempts = [
          get(path, auth),
          patch(path, { expected_version: 1, name: 'Hijacked' }, auth),
          t.http.delete(path).set('Authorization', auth),
          post(`${path}/copy`, {}, auth),
          t.http.post(`${path}/preview`).set('Authorization', auth).send({}),
          get(`${path}/thumbnail`, auth),
          t.http.put(`${path}/defaults/invoice`).set('Authorization', auth),
          t.http.delete(`${path}/defaults/invoice`).set('Authorization', auth),
        ];
        for (const response of await Promise.all(attempts)) expectError(response, 404, 'DOCUMENT_TEMPLATE_NOT_FOUND');
        const listed = await get('/v1/document_templates?limit=200', auth).expect(200);
        expect(listed.body.data.map((row: { id: string }) => row.id)).not.toContain(mine.id);
        expect(listed.text).not.toContain(mine.id);
      }
      expect(await db.query('SELECT * FROM document_templates WHERE id = $1', [mine.id])).toEqual(before);
      expect((await get(`/v1/document_templates/${mine.id}`).expect(200)).body.default_for).toEqual(['invoice']);
    });
  });
});

describe('PDF preview rate limit (per organization, across instances)', () => {
  let one: TestApp;
  let two: TestApp;

  beforeAll(async () => {
    const env = { PDF_PREVIEW_RATE_LIMIT_PER_MINUTE: '3' };
    one = await createTestApp({ env });
    two = await createTestApp({ env, database: one.database });
  });
  afterAll(async () => {
    await two.close();
    await one.close();
  });

  it('counts previews of one organization on every instance: the fourth in a minute is 429 RATE_LIMITED with Retry-After', async () => {
    const tenant = await createTenant(one);
    const other = await createTenant(one);
    const db = one.app.get(DataSource);
    // Stay inside one window: start early in a minute.
    const [{ second }] = await db.query('SELECT extract(second FROM now())::float AS second');
    if (second > 50) await new Promise((resolve) => setTimeout(resolve, (61 - second) * 1000));
    const send = (app: TestApp, auth = tenant.auth) =>
      app.http
        .post(`/v1/document_templates/${'00000000-0000-4000-8000-000000000001'}/preview`)
        .set('Authorization', auth)
        .buffer(true)
        .parse(binary)
        .send({});
    const answers = [await send(one), await send(two), await send(one)];
    expect(answers.map((response) => response.status)).toEqual([200, 200, 200]);
    expect(answers[2].headers['ratelimit-policy']).toContain('"pdf_preview";q=3;w=60');
    expect(answers[2].headers.ratelimit).toMatch(/"pdf_preview";r=0;t=\d+/);
    const limited = await two.http
      .post('/v1/document_templates/00000000-0000-4000-8000-000000000001/preview')
      .set('Authorization', tenant.auth)
      .send({});
    const error = expectError(limited, 429, 'RATE_LIMITED');
    expect(error.type).toBe('rate_limit_error');
    expect(Number(limited.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(Number(limited.headers['retry-after'])).toBeLessThanOrEqual(60);
    expect(error.details).toEqual(
      expect.objectContaining({ retry_after_seconds: Number(limited.headers['retry-after']), limit: 3 }),
    );
    // Another organization has its own budget; an unknown template does not spend it.
    for (let i = 0; i < 3; i += 1) {
      expectError(
        await one.http.post(`/v1/document_templates/${randomUUID()}/preview`).set('Authorization', other.auth).send({}),
        404,
        'DOCUMENT_TEMPLATE_NOT_FOUND',
      );
    }
    expect((await send(two, other.auth)).status).toBe(200);
  });
});

import fc from 'fast-check';
import {
  BAD_INPUT_RUNS,
  BadInputRoute,
  badInputSeed,
  expectEveryDefectRefused,
  expectRespelledPathsReplayed,
  Ids,
  nonArray,
  nonString,
} from '../support/bad-input';
import { templateDocument } from '../support/document-helpers';
import { pngDataUri } from '../support/png';
import { createTenant, idem, TestTenant } from '../support/tenants';
import { createTestApp, TestApp } from '../support/test-app';

/**
 * R8 for the document template writes: create, update, copy, mark default and preview get valid
 * requests spoiled by exactly one defect (see test/support/bad-input.ts), template documents
 * broken in one place included. Each must be answered 4xx in the contract's error shape, and
 * nothing may change. The seed is printed; SEED=<n> replays a run, BAD_INPUT_RUNS=<n> sizes it.
 */
const seed = badInputSeed();

const TABLES: Record<string, string[]> = {
  document_templates: [],
  document_template_defaults: [],
  audit_events: [],
};

/** Not a JSON object, so never a template document. */
const nonObject = fc.oneof(fc.integer(), fc.boolean(), fc.string({ maxLength: 8 }), fc.array(fc.integer(), { maxLength: 2 }));
const blocks = templateDocument().blocks;
/** Valid documents broken in exactly one place. */
const brokenDocument = fc.oneof(
  fc.constantFrom(
    templateDocument({ blocks: [...blocks, { type: 'signature' }] }),
    templateDocument({ blocks: [{ type: 'header', title: 'x', show_logo: true }] }),
    templateDocument({
      theme: { ...templateDocument().theme, page: { size: 'A3', margins: templateDocument().theme.page.margins } },
    }),
    templateDocument({ footer: { legal_text: 5, show_page_numbers: true } }),
    templateDocument({ branding: { company_name: null, logo: 'data:image/png;base64,iVBORw0KGgo=', accent_bar: true } }),
    // Well-formed PNGs but for one thing: pdfkit's decoder would fail outside any try/catch on them.
    templateDocument({ branding: { company_name: null, logo: pngDataUri({ filterByte: 9 }), accent_bar: true } }),
    templateDocument({ branding: { company_name: null, logo: pngDataUri({ badCrc: true }), accent_bar: true } }),
    templateDocument({ branding: { company_name: null, logo: pngDataUri({ height: 3, rows: 2 }), accent_bar: true } }),
    templateDocument({ email: { subject: 'x', preheader: null, body: 'y' } }),
    templateDocument({ blocks: [] }),
    { ...templateDocument(), theme: undefined },
  ),
  fc.record({ x_unknown: fc.string({ maxLength: 5 }) }).map((extra) => ({ ...templateDocument(), ...extra })),
  fc
    .double({ noNaN: true, noDefaultInfinity: true })
    .map((size) => templateDocument({ theme: { ...templateDocument().theme, font_size: size > 6 && size < 16 ? 99 : size } })),
);
const notAnInteger = fc.oneof(
  fc.string({ maxLength: 5 }),
  fc.boolean(),
  fc.double({ noNaN: true, noDefaultInfinity: true }).filter((value) => !Number.isInteger(value)),
  fc.integer({ max: 0 }),
  fc.array(fc.integer(), { maxLength: 2 }),
);

const ROUTES: BadInputRoute[] = [
  {
    name: 'create template',
    method: 'post',
    path: () => '/v1/document_templates',
    body: () => ({
      name: 'Invoice (EU)',
      description: 'Serif',
      document_types: ['invoice', 'quote'],
      template_json: templateDocument(),
    }),
    takesIds: false,
    wrongTypes: {
      name: nonString,
      description: nonString,
      document_types: fc.oneof(nonArray, fc.constant(['invoice', 'email']), fc.constant(['receipt'])),
      template_json: fc.oneof(nonObject, brokenDocument),
    },
  },
  {
    name: 'update template',
    method: 'patch',
    path: (ids) => `/v1/document_templates/${ids.template}`,
    body: () => ({ expected_version: 1, name: 'Renamed', template_json: templateDocument() }),
    takesIds: true,
    wrongTypes: { expected_version: notAnInteger, name: nonString, template_json: fc.oneof(nonObject, brokenDocument) },
  },
  {
    name: 'copy template',
    method: 'post',
    path: (ids) => `/v1/document_templates/${ids.template}/copy`,
    body: () => ({ name: 'A copy' }),
    takesIds: true,
  },
  {
    name: 'mark default',
    method: 'put',
    path: (ids) => `/v1/document_templates/${ids.template}/defaults/invoice`,
    body: () => ({}),
    takesIds: true,
  },
  {
    name: 'preview',
    method: 'post',
    path: (ids) => `/v1/document_templates/${ids.template}/preview`,
    body: () => ({ document_type: 'invoice', template_json: templateDocument() }),
    takesIds: true,
    wrongTypes: {
      document_type: fc.oneof(nonString, fc.constantFrom('receipt', 'quote', 'email', '')),
      template_json: fc.oneof(nonObject, brokenDocument),
    },
  },
];

describe('Document template routes under generated bad input (R8)', () => {
  let t: TestApp;
  let tenant: TestTenant;
  let ids: Ids;

  beforeAll(async () => {
    t = await createTestApp({ env: { PDF_PREVIEW_RATE_LIMIT_PER_MINUTE: '0' } });
    tenant = await createTenant(t);
    const template = await t.http
      .post('/v1/document_templates')
      .set('Authorization', tenant.auth)
      .set('Idempotency-Key', idem())
      .send({ name: 'Target', template_json: templateDocument() })
      .expect(201);
    ids = { template: template.body.id };
  });
  afterAll(() => t.close());

  it(`answers ${BAD_INPUT_RUNS} requests per route, each with one defect, with a 4xx and changes nothing (SEED printed)`, async () => {
    console.log(`documents bad input R8: SEED=${seed} (replay: SEED=${seed} npm test -- ${__filename.split('/test/')[1]})`);
    const stranger = await createTenant(t);
    const foreign = await t.http
      .post('/v1/document_templates')
      .set('Authorization', stranger.auth)
      .set('Idempotency-Key', idem())
      .send({ name: 'Not yours' })
      .expect(201);
    await expectEveryDefectRefused(t, {
      auth: tenant.auth,
      routes: ROUTES,
      ids,
      foreignId: foreign.body.id,
      seed,
      runs: BAD_INPUT_RUNS,
      tables: TABLES,
    });
  });

  it('replays each POST’s valid request under one Idempotency-Key however its path is spelled, with no second effect', async () => {
    await expectRespelledPathsReplayed(t, { auth: tenant.auth, routes: ROUTES, ids, tables: TABLES });
  });
});

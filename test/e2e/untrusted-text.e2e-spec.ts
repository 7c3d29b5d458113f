import { DataSource } from 'typeorm';
import { expectError } from '../support/expectations';
import { tableDigests, stateTables } from '../support/table-digest';
import { createTenant, idem, TestTenant } from '../support/tenants';
import { createTestApp, TestApp } from '../support/test-app';

/**
 * Text a tenant sends that used to stall or break the service for everyone (issue 19): a NUL
 * character PostgreSQL cannot store (a 500), a line break in a header-like field, and the
 * placeholder body whose scan froze the event loop. Each is a 400 in the contract's shape that
 * changes nothing.
 */
jest.setTimeout(60_000);

describe('Untrusted text', () => {
  let t: TestApp;
  let db: DataSource;
  let tenant: TestTenant;

  beforeAll(async () => {
    t = await createTestApp({ env: { PDF_PREVIEW_RATE_LIMIT_PER_MINUTE: '0' } });
    db = t.app.get(DataSource);
    tenant = await createTenant(t);
  });
  afterAll(() => t.close());

  const post = (path: string, body: object | string) =>
    t.http
      .post(path)
      .set('Authorization', tenant.auth)
      .set('Idempotency-Key', idem())
      .set('Content-Type', 'application/json')
      .send(typeof body === 'string' ? body : JSON.stringify(body));

  function expectFieldRefusal(response: { status: number; body: any; headers: any }, param: string, code: string): void {
    expectError(response as never, 400, 'invalid_request_error', 'VALIDATION_ERROR');
    expect(response.body.error.param).toBe(param);
    expect(response.body.error.errors[0]).toEqual(expect.objectContaining({ param, code }));
  }

  describe('a NUL character (U+0000), refused at the body layer on every route', () => {
    it('in a value, a nested value or a key of the body, pointing at the field; nothing is stored', async () => {
      const tables = await stateTables(db);
      const before = await tableDigests(db, tables);
      expectFieldRefusal(await post('/v1/customers', { name: 'Acme\u0000Corp', currency: 'EUR' }), 'name', 'INVALID_CHARACTER');
      expectFieldRefusal(
        await post('/v1/costs', { key: 'fee', name: 'Fee', values: [{ note: ['ok', 'bad\u0000'] }] }),
        'values[0].note[1]',
        'INVALID_CHARACTER',
      );
      expectFieldRefusal(await post('/v1/plans', { name: 'Plan', 'x\u0000y': 1 }), 'x\\u0000y', 'INVALID_CHARACTER');
      expectFieldRefusal(
        await post('/v1/document_templates', { name: 'Invoice', template_json: { branding: { company_name: '\u0000' } } }),
        'template_json.branding.company_name',
        'INVALID_CHARACTER',
      );
      const after = await tableDigests(db, tables);
      expect(Object.keys(tables).filter((table) => after[table] !== before[table])).toEqual([]);
      // An escaped backslash before u0000 is no NUL: that body goes on to be stored.
      const escaped = await post('/v1/customers', '{"name":"\\\\u0000","currency":"EUR"}');
      expect(escaped.status).toBe(201);
      expect(escaped.body.name).toBe('\\u0000');
    });

    it('in a query value or a path parameter', async () => {
      expectFieldRefusal(
        await t.http.get('/v1/customers?cursor=a%00b').set('Authorization', tenant.auth),
        'cursor',
        'INVALID_CHARACTER',
      );
      expectFieldRefusal(await t.http.get('/v1/customers/%00').set('Authorization', tenant.auth), 'id', 'INVALID_CHARACTER');
    });
  });

  describe('e-mail templates', () => {
    let id: string;
    let document: Record<string, any>;
    let version: number;

    beforeAll(async () => {
      const created = await post('/v1/document_templates', {
        name: 'Invoice mail',
        document_types: ['email'],
        anchor_key: 'invoice.finalized',
      });
      expect(created.status).toBe(201);
      id = created.body.id;
      document = created.body.template_json;
      version = created.body.version;
    });

    it.each(['\r', '\n', '\u000b', '\f', '\u0085', '\u2028', '\u2029'])(
      'refuses the line break %j in the subject, the preheader and the sender name, on create, update and preview',
      async (lineBreak) => {
        const email = { ...document.email, subject: `Invoice${lineBreak}Bcc: victim@example.com` };
        const spoiled = { ...document, email };
        const param = 'template_json/email/subject';
        expectFieldRefusal(
          await post('/v1/document_templates', {
            name: 'x',
            document_types: ['email'],
            anchor_key: 'invoice.finalized',
            template_json: spoiled,
          }),
          param,
          'INVALID_CHARACTER',
        );
        expectFieldRefusal(
          await t.http
            .patch(`/v1/document_templates/${id}`)
            .set('Authorization', tenant.auth)
            .send({ template_json: spoiled, expected_version: version }),
          param,
          'INVALID_CHARACTER',
        );
        expectFieldRefusal(
          await post(`/v1/document_templates/${id}/preview`, { template_json: spoiled }),
          param,
          'INVALID_CHARACTER',
        );
        const preheader = { ...document, email: { ...document.email, preheader: `a${lineBreak}b` } };
        expectFieldRefusal(
          await post(`/v1/document_templates/${id}/preview`, { template_json: preheader }),
          'template_json/email/preheader',
          'INVALID_CHARACTER',
        );
        const sender = { ...document, branding: { ...document.branding, company_name: `Acme${lineBreak}Bcc: x` } };
        expectFieldRefusal(
          await post(`/v1/document_templates/${id}/preview`, { template_json: sender }),
          'template_json/branding/company_name',
          'INVALID_CHARACTER',
        );
      },
    );

    it('answers a worst-case placeholder body at the maximum length with 400, and /health/live meanwhile', async () => {
      const body = `{{${' '.repeat(20_000 - 2)}`;
      const spoiled = { ...document, email: { ...document.email, body } };
      const [preview, live] = await Promise.all([
        post(`/v1/document_templates/${id}/preview`, { template_json: spoiled }),
        t.http.get('/health/live'),
      ]);
      expectFieldRefusal(preview, 'template_json/email/body', 'INVALID_SYNTAX');
      expect(live.status).toBe(200);
    });
  });
});

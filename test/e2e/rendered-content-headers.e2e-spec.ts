import { templateDocument } from '../support/document-helpers';
import { pngDataUri } from '../support/png';
import { rawClient } from '../support/raw-http';
import { createTenant, idem, TestTenant } from '../support/tenants';
import { createTestApp, TestApp } from '../support/test-app';

jest.setTimeout(60_000);

const POLICY = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'";

/** Every resource a rendered document refers to: what its Content-Security-Policy must still let load. */
function referencedResources(markup: string): string[] {
  return [...markup.matchAll(/\s(?:src|href)="([^"]*)"/g)].map((match) => match[1]);
}

/**
 * Renders carry text a tenant wrote: served to a browser, they are never sniffed into another type
 * and load or run nothing of their own beyond inline styles and data: images (issue 19, item 11).
 */
describe('Headers of what the API renders for a browser', () => {
  let t: TestApp;
  let tenant: TestTenant;
  let printed: string;
  let mail: string;

  beforeAll(async () => {
    t = await createTestApp({ env: { PDF_PREVIEW_RATE_LIMIT_PER_MINUTE: '0' } });
    tenant = await createTenant(t);
    const post = (body: object) =>
      t.http.post('/v1/document_templates').set('Authorization', tenant.auth).set('Idempotency-Key', idem()).send(body);
    const logo = pngDataUri({ width: 8, height: 8 });
    const branding = { company_name: 'Acme', logo, accent_bar: true };
    const printedResponse = await post({ name: 'Printed', template_json: templateDocument({ branding }) });
    expect(printedResponse.status).toBe(201);
    printed = printedResponse.body.id;
    const mailResponse = await post({
      name: 'Mail',
      document_types: ['email'],
      anchor_key: 'invoice.finalized',
      template_json: templateDocument({
        branding,
        blocks: [],
        email: { subject: 'Hi', preheader: null, body: 'Hello {{ customer.name }}' },
      }),
    });
    expect(mailResponse.status).toBe(201);
    mail = mailResponse.body.id;
  });
  afterAll(() => t.close());

  it('serves the SVG thumbnail with nosniff and the restrictive policy, and the thumbnail needs nothing it forbids', async () => {
    const response = await t.http
      .get(`/v1/document_templates/${printed}/thumbnail`)
      .set('Authorization', tenant.auth)
      .buffer(true);
    expect(response.status).toBe(200);
    expect(response.headers['x-content-type-options']).toBe('nosniff');
    expect(response.headers['content-security-policy']).toBe(POLICY);
    const svg = response.body.toString('utf8');
    expect(svg).not.toMatch(/<script|url\(|@import/i);
    expect(referencedResources(svg).filter((resource) => !resource.startsWith('data:image/'))).toEqual([]);
    expect(referencedResources(svg).length).toBeGreaterThan(0);
  });

  it.each([
    ['printed', () => printed],
    ['e-mail', () => mail],
  ])('serves the %s HTML render with nosniff and the restrictive policy, and it needs nothing it forbids', async (_kind, id) => {
    const response = await t.http
      .post(`/v1/document_templates/${id()}/preview`)
      .set('Authorization', tenant.auth)
      .set('Accept', 'text/html')
      .send({});
    expect(response.status).toBe(200);
    expect(response.headers['x-content-type-options']).toBe('nosniff');
    expect(response.headers['content-security-policy']).toBe(POLICY);
    expect(response.text).not.toMatch(/<script|<link|url\(|@import|<iframe|<form/i);
    expect(referencedResources(response.text).filter((resource) => !resource.startsWith('data:image/'))).toEqual([]);
    expect(referencedResources(response.text).length).toBeGreaterThan(0);
  });

  it('sends nosniff on every answer: JSON, errors, health, and documents it on every response', async () => {
    for (const response of [
      await t.http.get('/v1/document_templates').set('Authorization', tenant.auth),
      await t.http.get('/v1/document_templates'),
      await t.http.get('/health/live'),
      await t.http.get('/v1/no-such-route').set('Authorization', tenant.auth),
      // Refused by the router (bad percent-encoding) and by Node's parser (a control character in a header).
      await t.http.get('/v1/customers/%E0%A4%A').set('Authorization', tenant.auth),
    ]) {
      expect([response.status, response.headers['x-content-type-options']]).toEqual([response.status, 'nosniff']);
    }
    const client = await rawClient(t);
    try {
      const refused = await client.sendBytes(
        Buffer.from('GET /v1/customers HTTP/1.1\r\nHost: x\r\nX-Bad: a\x01b\r\n\r\n', 'latin1'),
      );
      expect([refused.status, refused.headers['x-content-type-options']]).toEqual([400, 'nosniff']);
    } finally {
      await client.close();
    }
    const document = (await t.http.get('/openapi.json').expect(200)).body;
    const thumbnail = document.paths['/v1/document_templates/{id}/thumbnail'].get.responses['200'].headers;
    expect(thumbnail['Content-Security-Policy'].schema.example).toBe(POLICY);
    for (const [path, item] of Object.entries<any>(document.paths)) {
      for (const [method, operation] of Object.entries<any>(item)) {
        for (const [status, response] of Object.entries<any>(operation.responses)) {
          expect([path, method, status, response.headers?.['X-Content-Type-Options']]).toEqual([
            path,
            method,
            status,
            { $ref: '#/components/headers/X-Content-Type-Options' },
          ]);
        }
      }
    }
  });
});

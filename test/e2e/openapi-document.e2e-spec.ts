import { CatalogClient } from '../support/catalog-helpers';
import { createPlan } from '../support/plan-helpers';
import { createTenant, idem } from '../support/tenants';
import { createTestApp, TestApp } from '../support/test-app';

/**
 * What a generated client and a Swagger UI explorer need from /openapi.json: types that agree
 * with their examples, list parameters a browser can send, the headers and error answers each
 * operation really has, and a description of what exists.
 */

type Schema = Record<string, any>;
/** The verbs an operationId may start with; a new one is a deliberate addition here. */
const OPERATION_VERBS = (
  'list get create update delete add remove open discard copy mark clear preview rotate revoke approve reject evaluate ' +
  'restore republish check migrate cancel make credit debit adjust capture release transfer set attach receive succeed fail ' +
  'redeliver'
).split(' ');
const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;

interface Operation {
  label: string;
  method: (typeof METHODS)[number];
  path: string;
  operation: Record<string, any>;
}

/** Every schema object in the document, with where it sits (components, parameters, bodies, responses). */
function walkSchemas(node: unknown, at: string, visit: (schema: Schema, at: string) => void): void {
  if (Array.isArray(node)) {
    node.forEach((item, index) => walkSchemas(item, `${at}[${index}]`, visit));
    return;
  }
  if (node === null || typeof node !== 'object') return;
  const object = node as Schema;
  if ('type' in object || '$ref' in object || 'allOf' in object || 'anyOf' in object || 'oneOf' in object) visit(object, at);
  for (const [key, value] of Object.entries(object)) {
    // Examples are data, not schemas.
    if (key === 'example' || key === 'examples') continue;
    walkSchemas(value, `${at}.${key}`, visit);
  }
}

/** Every named field (a property or a parameter) with its example, array items standing for their array's. */
function walkFields(document: Schema, visit: (schema: Schema, name: string, example: unknown, at: string) => void): void {
  const field = (schema: Schema | undefined, name: string, at: string, inherited?: unknown) => {
    if (!schema || schema.$ref) return;
    const example = schema.example ?? inherited;
    visit(schema, name, example, at);
    for (const branch of [...(schema.anyOf ?? []), ...(schema.oneOf ?? [])]) field(branch, name, at, example);
    if (schema.items) field(schema.items, name, `${at}[]`, Array.isArray(example) ? example[0] : undefined);
    for (const [property, child] of Object.entries<Schema>(schema.properties ?? {})) field(child, property, `${at}.${property}`);
  };
  for (const [name, schema] of Object.entries<Schema>(document.components.schemas)) {
    for (const [property, child] of Object.entries<Schema>(schema.properties ?? {}))
      field(child, property, `${name}.${property}`);
  }
  for (const [path, item] of Object.entries<Schema>(document.paths)) {
    for (const [method, operation] of Object.entries<Schema>(item)) {
      for (const parameter of operation.parameters ?? [])
        field(parameter.schema, parameter.name, `${method} ${path} ${parameter.name}`);
    }
  }
}

function typesOf(schema: Schema): string[] {
  return [schema.type ?? []].flat();
}

/** The JSON type of an example value, as a schema would name it. */
function exampleType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

function agrees(declared: string[], example: string): boolean {
  return declared.includes(example) || (example === 'integer' && declared.includes('number'));
}

describe('OpenAPI document: right for generated clients and Swagger UI explorers', () => {
  let t: TestApp;
  let document: Schema;
  let operations: Operation[];

  beforeAll(async () => {
    t = await createTestApp();
    document = (await t.http.get('/openapi.json').expect(200)).body;
    operations = Object.entries<Record<string, any>>(document.paths).flatMap(([path, item]) =>
      METHODS.filter((method) => item[method]).map((method) => ({
        label: `${method.toUpperCase()} ${path}`,
        method,
        path,
        operation: item[method],
      })),
    );
  });
  afterAll(() => t.close());

  const secured = (operation: Operation) =>
    (operation.operation.security ?? document.security ?? []).some((requirement: object) => 'bearer' in requirement);
  const codes400 = (operation: Operation) =>
    Object.keys(operation.operation.responses['400']?.content['application/json'].examples ?? {});
  const parameter = (operation: Operation, name: string, where: string) =>
    (operation.operation.parameters ?? []).find(
      (candidate: Schema) => candidate.in === where && candidate.name.toLowerCase() === name.toLowerCase(),
    );

  it('names every operation with an explicit, unique verb-noun operationId (generated clients’ method names)', () => {
    const VERB = new RegExp(`^(${OPERATION_VERBS.join('|')})(?:[A-Z][a-z0-9]*)+$`);
    const ids = operations.map((entry) => entry.operation.operationId);
    const misnamed = operations
      .filter(({ operation }) => typeof operation.operationId !== 'string' || !VERB.test(operation.operationId))
      .map((entry) => `${entry.label}: ${entry.operation.operationId}`);
    expect(misnamed).toEqual([]);
    expect(ids.filter((id, index) => ids.indexOf(id) !== index)).toEqual([]);
    const byLabel = Object.fromEntries(operations.map((entry) => [entry.label, entry.operation.operationId]));
    expect(byLabel).toEqual(
      expect.objectContaining({
        'POST /v1/customers': 'createCustomer',
        'GET /v1/plans': 'listPlans',
        'POST /v1/customers/{id}/payment_methods': 'attachPaymentMethod',
        'GET /v1/wallets/{id}': 'getWallet',
        'PATCH /v1/plans/{id}': 'updatePlan',
        'DELETE /v1/plans/{id}': 'deletePlan',
        'POST /v1/document_templates/{id}/preview': 'previewDocumentTemplate',
      }),
    );
  });

  it('documents the headers answers carry: Request-Id, Location, WWW-Authenticate, Idempotent-Replayed, the 304’s validators', () => {
    const problems: string[] = [];
    for (const entry of operations) {
      const keyed = parameter(entry, 'Idempotency-Key', 'header') !== undefined;
      for (const [status, response] of Object.entries<Schema>(entry.operation.responses)) {
        const expected = [
          'Request-Id',
          ...((status === '201' && entry.operation.operationId !== 'attachPaymentMethod') || status === '202'
            ? ['Location']
            : []),
          ...(status === '401' ? ['WWW-Authenticate'] : []),
          ...(keyed && /^[24]/.test(status) ? ['Idempotent-Replayed'] : []),
        ];
        for (const name of expected) if (!response.headers?.[name]) problems.push(`${entry.label} ${status}: no ${name}`);
      }
    }
    expect(problems).toEqual([]);
    expect(document.components.headers['WWW-Authenticate'].schema.enum).toEqual(['Bearer']);
    const thumbnail = operations.find((entry) => entry.label === 'GET /v1/document_templates/{id}/thumbnail')!.operation;
    expect(Object.keys(thumbnail.responses['304'].headers)).toEqual(expect.arrayContaining(['ETag', 'Cache-Control']));
    const debit = operations.find((entry) => entry.label === 'POST /v1/wallets/{id}/debit')!.operation;
    expect(Object.keys(debit.responses['409'].content['application/json'].examples)).toContain('REFERENCE_ALREADY_USED');
  });

  it('sends the headers it documents: Location on a sign-in and a plan membership, WWW-Authenticate on a 401, Request-Id always', async () => {
    const tenant = await createTenant(t, { withOwner: true });
    const signIn = await t.http
      .post('/v1/sessions')
      .send({ organization_id: tenant.organization_id, email: tenant.owner!.email, password: tenant.owner!.password })
      .expect(201);
    expect(signIn.headers.location).toBe('/v1/sessions/current');
    const api = new CatalogClient(t, tenant.auth);
    const plan = await createPlan(api);
    const product = await api.product();
    const added = await api.post(`/v1/plans/${plan.id}/products`, { product_id: product.id });
    expect([added.status, added.headers.location]).toEqual([201, `/v1/plans/${plan.id}/products/${product.id}`]);
    expect((await api.patch(added.headers.location, { min_quantity: 1 })).status).toBe(200);
    const refused = await t.http.get('/v1/wallets').expect(401);
    expect(refused.headers['www-authenticate']).toBe('Bearer');
    for (const response of [signIn, added, refused]) expect(response.headers['request-id']).toMatch(/^req_[0-9a-f-]{36}$/);
  });

  it('publishes what each field holds: timestamps as date-time, UUIDs as uuid (prefixed ids not), decimals with their pattern, whole numbers as integers', () => {
    const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/;
    const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
    const problems: string[] = [];
    const seen = { timestamps: 0, uuids: 0, decimals: 0 };
    walkFields(document, (schema, name, example, at) => {
      const types = typesOf(schema);
      if (types.includes('number') && Number.isInteger(example)) problems.push(`${at}: a whole number typed number`);
      if (!types.includes('string') || schema.enum) return;
      const timestamp =
        (typeof example === 'string' && DATE_TIME.test(example)) || (/_at$/.test(name) && typeof example !== 'string');
      if (timestamp && schema.format !== 'date-time') problems.push(`${at}: a timestamp without format date-time`);
      // An Idempotency-Key is any string the client picks; its example (what Swagger UI pre-fills) is a UUID.
      const uuidExpected = name !== 'Idempotency-Key';
      if (uuidExpected && typeof example === 'string' && UUID.test(example) && schema.format !== 'uuid')
        problems.push(`${at}: a UUID without format uuid`);
      if (schema.format === 'uuid' && typeof example === 'string' && !UUID.test(example))
        problems.push(`${at}: format uuid, example ${example}`);
      if (typeof example === 'string' && /^-?\d+(\.\d+)?$/.test(example) && !schema.pattern)
        problems.push(`${at}: a decimal without its pattern`);
      if (schema.format === 'date-time') seen.timestamps++;
      if (schema.format === 'uuid') seen.uuids++;
      if (schema.pattern === '^-?\\d+(\\.\\d+)?$') seen.decimals++;
    });
    expect(problems).toEqual([]);
    expect(seen.timestamps).toBeGreaterThanOrEqual(100);
    expect(seen.uuids).toBeGreaterThanOrEqual(100);
    expect(seen.decimals).toBeGreaterThanOrEqual(60);
    const schemas = document.components.schemas;
    // Prefixed and external ids are not UUIDs, and say nothing of the kind.
    for (const [dto, field] of [
      ['PaymentMethodDto', 'id'],
      ['CreateTopUpDto', 'payment_method_id'],
      ['CreateHoldDto', 'tax_rule_id'],
      ['CustomerDto', 'external_id'],
    ]) {
      expect({ field: `${dto}.${field}`, format: schemas[dto].properties[field].format }).toEqual({
        field: `${dto}.${field}`,
        format: undefined,
      });
    }
    expect(schemas.WalletDto.properties.available_balance.pattern).toBe('^-?\\d+(\\.\\d+)?$');
    expect(schemas.ApiKeyDto.properties.revoked_at.format).toBe('date-time');
  });

  it('describes the fields a plan update always refuses as refused: no type, no example to send', () => {
    const update = document.components.schemas.UpdatePlanDto.properties;
    for (const field of ['effective_at', 'save_as_draft', 'publish_now', 'product_version_pins']) {
      expect({ field, schema: update[field] }).toEqual({
        field,
        schema: { not: {}, description: expect.stringMatching(/^Always refused \(400 FIELD_NOT_ALLOWED\)/) },
      });
    }
  });

  it('gives every operation that takes a body a whole-body example (the plan update’s names no refused field)', () => {
    const problems: string[] = [];
    for (const entry of operations) {
      const media = entry.operation.requestBody?.content?.['application/json'];
      if (!media) continue;
      const examples =
        media.example !== undefined
          ? [media.example]
          : Object.values<Schema>(media.examples ?? {}).map((example) => example.value);
      if (examples.length === 0 || examples.some((example) => example === null || typeof example !== 'object')) {
        problems.push(`${entry.label}: no whole-body example`);
      }
    }
    expect(problems).toEqual([]);
    const patchPlan = operations.find((entry) => entry.label === 'PATCH /v1/plans/{id}')!.operation;
    expect(Object.keys(patchPlan.requestBody.content['application/json'].example)).toEqual([]);
    const customer = operations.find((entry) => entry.label === 'POST /v1/customers')!.operation;
    expect(customer.requestBody.content['application/json'].example).toEqual({ name: expect.any(String), currency: 'EUR' });
  });

  it('gives every schema with an example a type that agrees with it (a decimal string is a string, not an object)', () => {
    const disagreements: string[] = [];
    walkSchemas(document, '#', (schema, at) => {
      if (!('example' in schema) || schema.$ref) return;
      const declared = typesOf(schema);
      // A nullable $ref (anyOf [$ref, null]) or an enum without a type carries no type to compare.
      if (declared.length === 0) return;
      const example = exampleType(schema.example);
      if (!agrees(declared, example)) disagreements.push(`${at}: type ${JSON.stringify(schema.type)}, example ${example}`);
    });
    expect(disagreements).toEqual([]);
  });

  it('declares the nullable and optional properties of the issue with their real types', () => {
    const schemas = document.components.schemas;
    for (const dto of ['CreateWalletDto', 'UpdateWalletDto']) {
      for (const field of ['credit_limit', 'max_balance', 'max_single_credit', 'low_balance_threshold', 'auto_topup_amount']) {
        expect({ field: `${dto}.${field}`, type: schemas[dto].properties[field].type }).toEqual({
          field: `${dto}.${field}`,
          type: ['string', 'null'],
        });
      }
    }
    expect(schemas.UpdateWalletDto.properties.auto_topup_payment_method_id.type).toEqual(['string', 'null']);
    expect(schemas.CreditDto.properties.expires_at.type).toEqual(['string', 'null']);
    expect(schemas.CreateHoldDto.properties.expires_at.type).toEqual(['string', 'null']);
    expect(schemas.CreateHoldDto.properties.tax_rule_id.type).toEqual(['string', 'null']);
    expect(typesOf(schemas.UpdateWorkspaceDto.properties.name)).toContain('string');
  });

  it('has no object without properties anywhere (a free-form map says so with additionalProperties)', () => {
    const shapeless: string[] = [];
    walkSchemas(document, '#', (schema, at) => {
      if (!typesOf(schema).includes('object')) return;
      const described = Object.keys(schema.properties ?? {}).length > 0 || schema.additionalProperties !== undefined;
      if (!described) shapeless.push(at);
    });
    expect(shapeless).toEqual([]);
    expect(Object.keys(document.components.schemas)).not.toContain('Object');
  });

  it('types every list’s limit as an integer that admits what the server clamps, and pre-fills no invalid cursor', () => {
    const lists = operations.filter((operation) => parameter(operation, 'limit', 'query'));
    expect(lists.length).toBeGreaterThanOrEqual(6);
    for (const list of lists) {
      const { schema } = parameter(list, 'limit', 'query');
      expect({ list: list.label, schema }).toEqual({
        list: list.label,
        // Clamped, not refused: the schema admits a larger value and says it is clamped.
        schema: expect.objectContaining({ type: 'integer', minimum: 1, maximum: Number.MAX_SAFE_INTEGER, default: 50 }),
      });
      expect(parameter(list, 'limit', 'query').description).toMatch(/clamped to 200/);
      const cursor = parameter(list, 'cursor', 'query');
      expect({
        list: list.label,
        cursor: cursor && { type: cursor.schema.type, example: cursor.example ?? cursor.schema.example },
      })
        // An example cursor would have to be valid for this list, filters and secret: there is none.
        .toEqual({ list: list.label, cursor: { type: 'string', example: undefined } });
    }
  });

  it('pre-fills no optional list filter in Swagger UI (an example filter would empty an explorer’s first list)', () => {
    const prefilled = operations.flatMap((operation) =>
      (operation.operation.parameters ?? [])
        .filter((candidate: Schema) => candidate.in === 'query' && !candidate.required && candidate.name !== 'limit')
        .filter((candidate: Schema) => candidate.example !== undefined || candidate.schema?.example !== undefined)
        .map((candidate: Schema) => `${operation.label} ${candidate.name}`),
    );
    expect(prefilled).toEqual([]);
    const wallets = operations.find((operation) => operation.label === 'GET /v1/wallets')!;
    expect(parameter(wallets, 'customer_id', 'query').description).toMatch(/Example: `[0-9a-f-]{36}`/);
  });

  it('declares Idempotency-Key on every authenticated POST: required (the interceptor refuses them without it) but on pure renders', () => {
    const posts = operations.filter((operation) => operation.method === 'post' && secured(operation));
    expect(posts.length).toBeGreaterThanOrEqual(15);
    // The PDF preview renders and changes nothing: it accepts a key without requiring one.
    // Pure computations (the contract's preview, the catalog model's evaluate): the key is accepted, not required.
    const OPTIONAL = ['POST /v1/document_templates/{id}/preview', 'POST /v1/costs/evaluate'];
    for (const post of posts) {
      const header = parameter(post, 'Idempotency-Key', 'header');
      expect({ route: post.label, required: header?.required, type: header?.schema?.type }).toEqual({
        route: post.label,
        required: !OPTIONAL.includes(post.label),
        type: 'string',
      });
    }
    expect(codes400(posts.find((post) => post.label === OPTIONAL[0])!)).not.toContain('IDEMPOTENCY_KEY_REQUIRED');
    // Sign-in and signed provider webhooks are not idempotent routes.
    for (const open of operations.filter((operation) => !secured(operation))) {
      expect({ route: open.label, header: parameter(open, 'Idempotency-Key', 'header') }).toEqual({
        route: open.label,
        header: undefined,
      });
    }
  });

  it('documents 400 and 429 on every /v1 operation, and each error status with its own codes and examples', () => {
    const problems: string[] = [];
    for (const entry of operations) {
      const responses: Record<string, Schema> = entry.operation.responses;
      if (entry.path.startsWith('/v1/')) {
        for (const status of ['400', '429']) if (!responses[status]) problems.push(`${entry.label}: no ${status}`);
      }
      if (secured(entry)) {
        for (const status of ['401', '403']) if (!responses[status]) problems.push(`${entry.label}: no ${status}`);
      }
      for (const [status, response] of Object.entries(responses)) {
        if (Number(status) < 400 || entry.path.startsWith('/health/')) continue;
        const content = response.content?.['application/json'];
        expect(content?.schema).toEqual({ $ref: '#/components/schemas/ErrorBody' });
        const examples = Object.entries<Schema>(content?.examples ?? {});
        if (examples.length === 0) problems.push(`${entry.label} ${status}: no example`);
        for (const [name, example] of examples) {
          const error = example.value?.error;
          if (error?.status !== Number(status))
            problems.push(`${entry.label} ${status}: example ${name} has status ${error?.status}`);
          if (error?.code !== name) problems.push(`${entry.label} ${status}: example ${name} shows ${error?.code}`);
          if (!response.description.includes(name)) problems.push(`${entry.label} ${status}: ${name} not in the description`);
        }
      }
    }
    expect(problems).toEqual([]);
  });

  it('names the codes each status can answer, from the route’s own metadata', () => {
    const codes = (label: string, status: number) =>
      Object.keys(find(label).operation.responses[status]?.content['application/json'].examples ?? {});
    const find = (label: string) => operations.find((operation) => operation.label === label)!;

    expect(codes('GET /v1/wallets', 400)).toEqual(expect.arrayContaining(['VALIDATION_ERROR', 'INVALID_CURSOR']));
    expect(codes('GET /v1/wallets', 400)).not.toContain('IDEMPOTENCY_KEY_REQUIRED');
    expect(codes('GET /v1/wallets', 401)).toEqual(['UNAUTHENTICATED', 'API_KEY_REVOKED', 'API_KEY_EXPIRED']);
    expect(codes('GET /v1/wallets', 403)).toEqual(expect.arrayContaining(['INSUFFICIENT_SCOPE', 'IP_NOT_ALLOWED']));
    expect(codes('GET /v1/wallets', 404)).toEqual(['WORKSPACE_NOT_FOUND']);
    expect(codes('GET /v1/wallets', 429)).toEqual(['RATE_LIMITED']);
    expect(find('GET /v1/wallets').operation.responses['409']).toBeUndefined();

    expect(codes('POST /v1/customers', 400)).toEqual(
      expect.arrayContaining(['VALIDATION_ERROR', 'MALFORMED_REQUEST', 'IDEMPOTENCY_KEY_REQUIRED', 'IDEMPOTENCY_KEY_INVALID']),
    );
    expect(codes('POST /v1/customers', 409)).toEqual(expect.arrayContaining(['IDEMPOTENCY_KEY_IN_USE']));
    expect(codes('POST /v1/customers', 422)).toEqual(['IDEMPOTENCY_KEY_REUSED']);

    expect(codes('GET /v1/wallets/{id}', 404)).toEqual(['WORKSPACE_NOT_FOUND', 'WALLET_NOT_FOUND']);
    expect(codes('POST /v1/wallets/{id}/transfer', 409)).toEqual(
      expect.arrayContaining(['IDEMPOTENCY_KEY_IN_USE', 'IDEMPOTENCY_KEY_ALREADY_PROCESSED']),
    );
    expect(codes('POST /v1/wallets/{id}/debit', 422)).toEqual(
      expect.arrayContaining(['IDEMPOTENCY_KEY_REUSED', 'INSUFFICIENT_FUNDS']),
    );
    expect(codes('POST /v1/sessions', 401)).toEqual(['INVALID_CREDENTIALS']);
    // The scope a route requires stays in its 403 description (the route-table suite reads it).
    expect(find('GET /v1/wallets').operation.responses['403'].description).toContain('requires wallets:read');
  });

  it('documents what the routes really answer: a list and a POST refused the ways their documents say', async () => {
    const tenant = await createTenant(t);
    const documented = (label: string, status: number): string[] =>
      Object.keys(
        operations.find((operation) => operation.label === label)?.operation.responses[status]?.content['application/json']
          .examples ?? {},
      );
    const seen: string[] = [];
    const expectDocumented = (label: string, response: { status: number; body: Schema }) => {
      const code: string = response.body.error?.code;
      seen.push(`${label} ${response.status} ${code}`);
      expect({ label, code, documented: documented(label, response.status) }).toEqual({
        label,
        code,
        documented: expect.arrayContaining([code]),
      });
    };

    expectDocumented('GET /v1/wallets', await t.http.get('/v1/wallets'));
    expectDocumented('GET /v1/wallets', await t.http.get('/v1/wallets?colour=red').set('Authorization', tenant.auth));
    expectDocumented(
      'GET /v1/wallets',
      await t.http.get('/v1/wallets?cursor=v1.forged.cursor').set('Authorization', tenant.auth),
    );
    expectDocumented(
      'GET /v1/wallets',
      await t.http.get('/v1/wallets').set('Authorization', tenant.auth).set('X-Workspace-Id', 'nowhere'),
    );
    const customer = { name: 'Explorer GmbH', currency: 'EUR' };
    expectDocumented('POST /v1/customers', await t.http.post('/v1/customers').set('Authorization', tenant.auth).send(customer));
    const key = idem();
    await t.http.post('/v1/customers').set('Authorization', tenant.auth).set('Idempotency-Key', key).send(customer).expect(201);
    expectDocumented(
      'POST /v1/customers',
      await t.http
        .post('/v1/customers')
        .set('Authorization', tenant.auth)
        .set('Idempotency-Key', key)
        .send({ ...customer, name: 'Other' }),
    );
    expect(seen).toEqual([
      'GET /v1/wallets 401 UNAUTHENTICATED',
      'GET /v1/wallets 400 VALIDATION_ERROR',
      'GET /v1/wallets 400 INVALID_CURSOR',
      'GET /v1/wallets 404 WORKSPACE_NOT_FOUND',
      'POST /v1/customers 400 IDEMPOTENCY_KEY_REQUIRED',
      'POST /v1/customers 422 IDEMPOTENCY_KEY_REUSED',
    ]);
  });

  it('documents the preview and thumbnail media types, the 304, and the template document’s JSON Schema', () => {
    const find = (label: string) => operations.find((operation) => operation.label === label)!.operation;
    const preview = find('POST /v1/document_templates/{id}/preview');
    expect(Object.keys(preview.responses['200'].content)).toEqual(['application/pdf', 'text/html', 'text/plain']);
    expect(preview.responses['200'].content['application/pdf'].schema).toEqual(
      expect.objectContaining({ type: 'string', format: 'binary' }),
    );
    expect(preview.responses['429'].headers['Retry-After']).toBeDefined();
    // A client picks the render explicitly; without format, Accept still decides.
    expect(parameter({ operation: preview } as Operation, 'format', 'query')).toEqual(
      expect.objectContaining({ required: false, schema: expect.objectContaining({ enum: ['pdf', 'html', 'text'] }) }),
    );
    const thumbnail = find('GET /v1/document_templates/{id}/thumbnail');
    expect(Object.keys(thumbnail.responses['200'].content)).toEqual(['image/svg+xml']);
    expect(thumbnail.responses['200'].content['image/svg+xml'].schema).toEqual(
      expect.objectContaining({ type: 'string', format: 'binary', example: expect.stringMatching(/^<svg /) }),
    );
    expect(thumbnail.responses['200'].headers.ETag).toBeDefined();
    expect(thumbnail.responses['304'].description).toMatch(/no body/);
    expect(Object.keys(find('PATCH /v1/document_templates/{id}').responses['409'].content['application/json'].examples)).toEqual(
      expect.arrayContaining(['CONFLICT', 'SYSTEM_TEMPLATE_READ_ONLY', 'INVALID_STATUS_TRANSITION']),
    );
    expect(
      Object.keys(
        find('DELETE /v1/document_templates/{id}/defaults/{document_type}').responses['409'].content['application/json'].examples,
      ),
    ).toEqual(['NOT_DEFAULT_HOLDER']);
    const schema = document.components.schemas.TemplateDocument;
    expect(schema.required).toEqual(['theme', 'branding', 'blocks', 'footer']);
    expect(schema.properties.theme.properties.font_family.enum).toEqual(['DejaVu Sans', 'DejaVu Serif']);
    expect(document.components.schemas.DocumentTemplateDto.properties.template_json.allOf).toEqual([
      { $ref: '#/components/schemas/TemplateDocument' },
    ]);
  });

  it('describes what exists, naming every part: no JWT bearer format, no schema name that is not published', () => {
    const description: string = document.info.description;
    for (const part of ['Customers and wallets', 'Catalog', 'Documents', 'Identity and administration', 'Health']) {
      expect(description).toContain(`**${part}**`);
    }
    expect(description).toMatch(/document templates/i);
    expect(description).toMatch(/wallet/i);
    expect(document.components.securitySchemes.bearer.bearerFormat ?? '').not.toMatch(/JWT/i);
    expect(JSON.stringify(document)).not.toMatch(/JWT/);

    const published = new Set(Object.keys(document.components.schemas));
    for (const [, name] of description.matchAll(/the (\w+) schema/g)) expect(published).toContain(name);
    const dangling = [...JSON.stringify(document).matchAll(/"#\/components\/schemas\/([^"]+)"/g)]
      .map(([, name]) => name)
      .filter((name) => !published.has(name));
    expect(dangling).toEqual([]);
    for (const [name, schema] of Object.entries<Schema>(document.components.schemas)) {
      expect({ name, properties: Object.keys(schema.properties ?? {}).length > 0 }).toEqual({ name, properties: true });
    }
  });
});

import fc from 'fast-check';
import { DocumentedOperation as Operation, resolveSchema } from './openapi-walk';
import { pngDataUri } from './png';
import { utf8Bytes } from './raw-http';

/**
 * R8 generators over the live OpenAPI document: each documented operation is turned into
 * requests that carry exactly one defect — in a header (Authorization, Idempotency-Key,
 * X-Workspace-Id, Content-Type, If-None-Match: missing, repeated, oversized, malformed), in the
 * body (not JSON, not an object, nested too deep, over 1 MB, prototype keys at any level, huge
 * or non-ASCII numbers where the schema types a number, decimal, id, currency, date or enum; a
 * NUL character in any text field or key at any depth; the backtracking placeholder worst cases
 * at each text field's maximum length; documents that amplify what a render costs where the body
 * holds a template document), in the query string (NUL, the same worst cases) or in a
 * path id — with the answer the contract requires: a refusal (a 4xx
 * in the error shape, with its status and code where one defect decides them) or, for a
 * GET whose defect the API tolerates by design, anything but a 5xx.
 *
 * Header and property defects spoil an otherwise valid request (its required fields filled
 * from the schema's examples), so that a check that stops refusing shows as a state change, not
 * only as another status.
 */
export type Schema = Record<string, any>;
export interface Tenant {
  /** The Authorization value of a live key holding every scope. */
  auth: string;
  sandboxWorkspaceId: string;
  /** A workspace of another organization. */
  foreignWorkspaceId: string;
  /** Real ids by documented path prefix, for GETs only (a thumbnail needs a real template to compare ETags). */
  readableIds: Record<string, string>;
}

export type Expectation = { refused: true; status?: number; code?: string } | { refused: false };

export interface BadRequest {
  operation: string;
  family: string;
  defect: string;
  method: string;
  path: string;
  headers: Array<[string, string]>;
  body?: string;
  /** Sent byte for byte on its own connection (what Node refuses to write: control characters in a header). */
  bytes?: Buffer;
  expect: Expectation;
}

const FAKE_ID = '01a21255-0000-7000-8000-00000000beef';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const DECIMAL = /^-?\d+(\.\d+)?$/;
const CURRENCY = /^[A-Z]{3}$/;
const ISO_TIME = /^\d{4}-\d{2}-\d{2}T/;

/** The path with every parameter filled: a made-up id (nothing of the caller's is ever touched), or a real one for GETs. */
function concrete(operation: Operation, tenant: Tenant, override: Record<string, string> = {}): string {
  const real =
    operation.method === 'get'
      ? Object.entries(tenant.readableIds).find(([prefix]) => operation.path.startsWith(prefix))
      : undefined;
  return operation.path.replace(/\{(\w+)\}/g, (_match, name: string) => {
    if (override[name] !== undefined) return override[name];
    if (name === 'id' && real) return real[1];
    if (name === 'document_type') return 'invoice';
    if (name === 'version') return '1';
    if (name === 'provider') return 'sandbox';
    if (name === 'from') return 'EUR';
    if (name === 'to') return 'USD';
    return FAKE_ID;
  });
}

/** A value the property's example suggests, else a plain one of its type. */
function exampleOf(document: Schema, property: Schema): unknown {
  const schema = resolveSchema(document, property) ?? {};
  if (schema.example !== undefined) return schema.example;
  if (schema.enum) return schema.enum[0];
  const type = [schema.type].flat().find((candidate) => candidate !== 'null');
  if (type === 'object' && schema.properties) return exemplaryBody(document, schema);
  return { string: 'x', number: 1, integer: 1, boolean: true, array: [], object: {} }[type as string] ?? 'x';
}

/** The schema's required properties, each with its example: valid wherever the examples are. */
export function exemplaryBody(document: Schema, schema: Schema | undefined): Record<string, unknown> {
  if (!schema) return {};
  return Object.fromEntries(
    ((schema.required ?? []) as string[]).map((name) => [name, exampleOf(document, schema.properties?.[name] ?? {})]),
  );
}

type PropertyKind = 'number' | 'decimal' | 'id' | 'currency' | 'time' | 'enum' | 'object' | 'text';

/** What a property holds, read from its type, format, enum and example. */
function kindOf(document: Schema, property: Schema): PropertyKind {
  const schema = resolveSchema(document, property) ?? {};
  const types = [schema.type].flat();
  const example = schema.example;
  if (types.includes('integer') || types.includes('number')) return 'number';
  if (schema.enum || schema.items?.enum) return 'enum';
  if (types.includes('object') || schema.properties) return 'object';
  const sample = Array.isArray(example) ? example[0] : example;
  if (typeof sample === 'string') {
    if (UUID.test(sample) || schema.format === 'uuid') return 'id';
    if (DECIMAL.test(sample)) return 'decimal';
    if (CURRENCY.test(sample)) return 'currency';
    if (ISO_TIME.test(sample)) return 'time';
  }
  if (schema.format === 'date-time') return 'time';
  return 'text';
}

/** JSON text of numbers no field takes: beyond float64, beyond 64 bits, past the exponent range. */
const HUGE_NUMBERS = ['1e400', '-1e400', '18446744073709551616', '-9223372036854775809', '123456789012345678901234567890.5'];
/** Digits of other scripts: Arabic-Indic, extended Arabic-Indic, full-width, Devanagari. */
const FOREIGN_DIGITS = ['٣', '۴', '３', '७'];
const PROTOTYPE_NAMES = ['__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', 'valueOf'];

/** 1 to maxLength characters of the alphabet (fc.stringMatching costs far more per value). */
const word = (alphabet: string, maxLength: number) => fc.string({ unit: fc.constantFrom(...alphabet), minLength: 1, maxLength });

const foreignDigits = (text: string, digit: string) => text.replace(/[0-9]/g, digit);

/** Values (as JSON text) the property must refuse, by what it holds; none for free text and free objects. */
function refusedValues(kind: PropertyKind, example: unknown): string[] {
  const sample =
    typeof example === 'string' ? example : Array.isArray(example) && typeof example[0] === 'string' ? example[0] : '1';
  const texts = (values: string[]) => values.map((value) => JSON.stringify(Array.isArray(example) ? [value] : value));
  switch (kind) {
    case 'number':
      return [...HUGE_NUMBERS, '"NaN"', '"Infinity"', ...texts(FOREIGN_DIGITS.map((digit) => digit.repeat(2))), '1.5e300'];
    case 'decimal':
      return [
        ...HUGE_NUMBERS,
        '-0',
        ...texts(['NaN', 'Infinity', '-Infinity', '1e400', ...FOREIGN_DIGITS.map((digit) => foreignDigits(sample, digit))]),
      ];
    case 'id':
      return texts([...FOREIGN_DIGITS.map((digit) => foreignDigits(sample, digit)), ...PROTOTYPE_NAMES, 'x'.repeat(5000)]);
    case 'currency':
      return texts(['ＥＵＲ', ...PROTOTYPE_NAMES.filter((name) => name !== 'prototype')]);
    case 'time':
      return texts([
        ...FOREIGN_DIGITS.map((digit) => foreignDigits(sample.length > 4 ? sample : '2026-11-25T10:00:00Z', digit)),
        'constructor',
      ]);
    case 'enum':
      return texts(PROTOTYPE_NAMES);
    default:
      return [];
  }
}

/** `{"a": [{"b": <inner>}]}`: inner text placed at a path of property names and array steps. */
function placed(path: Array<string | 0>, inner: string): string {
  return path.reduceRight<string>((text, step) => (step === 0 ? `[${text}]` : `{${JSON.stringify(step)}:${text}}`), inner);
}

/** Every place in a body schema an object can stand (the root included), down to three levels, with its schema. */
function objectsOf(
  document: Schema,
  schema: Schema | undefined,
  prefix: Array<string | 0> = [],
  depth = 0,
): Array<{ path: Array<string | 0>; schema: Schema }> {
  if (!schema || depth > 3) return [];
  const objects = [{ path: prefix, schema }];
  for (const [name, property] of Object.entries<Schema>(schema.properties ?? {})) {
    const resolved = resolveSchema(document, property) ?? {};
    const types = [resolved.type].flat();
    if (types.includes('object') || resolved.properties)
      objects.push(...objectsOf(document, resolved, [...prefix, name], depth + 1));
    else if (types.includes('array')) {
      const items = resolveSchema(document, resolved.items);
      if (items && ([items.type].flat().includes('object') || items.properties))
        objects.push(...objectsOf(document, items, [...prefix, name, 0], depth + 1));
    }
  }
  return objects;
}

function objectPaths(document: Schema, schema: Schema | undefined): Array<Array<string | 0>> {
  return objectsOf(document, schema).map(({ path }) => path);
}

/** A string property (or an array of strings) somewhere in a body, with the longest text it takes. */
interface TextField {
  path: Array<string | 0>;
  name: string;
  inArray: boolean;
  maxLength: number;
}

/** The longest worst case sent: the longest text field of the API (an e-mail body); longer ones are refused by length first. */
const MAX_TEXT = 20_000;

function textFields(document: Schema, schema: Schema | undefined): TextField[] {
  return objectsOf(document, schema).flatMap(({ path, schema: object }) =>
    Object.entries<Schema>(object.properties ?? {}).flatMap(([name, property]) => {
      const resolved = resolveSchema(document, property) ?? {};
      const items = resolveSchema(document, resolved.items) ?? {};
      const inArray = [resolved.type].flat().includes('array') && [items.type].flat().includes('string');
      const text = inArray ? items : resolved;
      if (!inArray && ![resolved.type].flat().includes('string')) return [];
      if (text.enum || text.format === 'uuid' || text.format === 'date-time') return [];
      return [{ path, name, inArray, maxLength: Math.min(text.maxLength ?? MAX_TEXT, MAX_TEXT) }];
    }),
  );
}

const label = (field: TextField) => `/${[...field.path, field.name].join('/')}`;

/** The body with one text field set to `text`: the valid body for a root field, else the field's object placed alone. */
function bodyWithText(valid: Record<string, unknown>, field: TextField, text: string): string {
  const value = field.inArray ? [text] : text;
  return field.path.length === 0
    ? JSON.stringify({ ...valid, [field.name]: value })
    : placed(field.path, JSON.stringify({ [field.name]: value }));
}

/** The JSON object text with an undeclared field added: the request is refused once every validator has read the rest. */
function withUndeclaredField(body: string): string {
  return body === '{}' ? '{"x_undeclared":true}' : `{"x_undeclared":true,${body.slice(1)}}`;
}

/** Texts holding U+0000, which PostgreSQL text and jsonb cannot store. */
const NUL_TEXTS = ['\u0000', 'a\u0000b', 'ok\u0000'];

/**
 * The shapes that made backtracking placeholder patterns take hours (`{{` and a long run of white
 * space, braces opened again and again), at a given length.
 */
const PLACEHOLDER_WORST_CASES: Array<[string, (length: number) => string]> = [
  ['{{ and white space', (length) => `{{${' '.repeat(length - 2)}`],
  ['{{ and a run of names', (length) => `{{${' a'.repeat((length - 2) >> 1)}`],
  ['nested {{', (length) => '{{ '.repeat(Math.floor(length / 3))],
  ['{{ … } } }', (length) => `{{${' }'.repeat((length - 2) >> 1)}`],
];

export interface Draft {
  /** Where the defect is: a header's name, body, query or path. */
  family?: string;
  defect: string;
  expect: Expectation;
  /** Header lines replacing the standard ones (Authorization, Idempotency-Key, Content-Type). */
  headers?: (standard: Array<[string, string]>) => Array<[string, string]>;
  /** The body's JSON text; the exemplary body when absent. */
  body?: string | null;
  path?: Record<string, string>;
  query?: string;
  /** Send as raw bytes (a control character in a header value). */
  raw?: boolean;
}

const refused = (status?: number, code?: string): Expectation => ({
  refused: true,
  ...(status && { status }),
  ...(code && { code }),
});
const TOLERATED: Expectation = { refused: false };

const without = (name: string) => (headers: Array<[string, string]>) => headers.filter(([other]) => other !== name);
const replaced = (name: string, value: string) => (headers: Array<[string, string]>) =>
  headers.some(([other]) => other === name)
    ? headers.map(([other, old]) => [other, other === name ? value : old] as [string, string])
    : [...headers, [name, value] as [string, string]];
const twice = (name: string, first: string | undefined, second: string) => (headers: Array<[string, string]>) => {
  const current = headers.find(([other]) => other === name)?.[1];
  return [...without(name)(headers), [name, first ?? current ?? second] as [string, string], [name, second] as [string, string]];
};

/** Header values past Node's 16 KB limit: 431 before any route runs. */
const OVERSIZED = fc.constantFrom(17_000, 32_000, 100_000);
const CONTROL = fc.constantFrom('\x00', '\x01', '\x08', '\x0b', '\x1b', '\x7f');

function authorizationDefects(tenant: Tenant): fc.Arbitrary<Draft> {
  const token = tenant.auth.slice('Bearer '.length);
  const flipped = `${token.slice(0, -1)}${token.endsWith('A') ? 'B' : 'A'}`;
  const unauthenticated = refused(401, 'UNAUTHENTICATED');
  return fc.oneof(
    fc.constant<Draft>({ defect: 'Authorization missing', headers: without('Authorization'), expect: unauthenticated }),
    fc
      .constantFrom(
        '',
        'Bearer',
        'Bearer ',
        `Basic ${Buffer.from(`${token}:`).toString('base64')}`,
        `Token ${token}`,
        token,
        `Bearer  ${token}`,
        `Bearer ${token} ${token}`,
        `Bearer ${token},`,
        `Bearer ${flipped}`,
        `Bearer sess_${'0'.repeat(49)}`,
        `Bearer sk_live_${'A'.repeat(49)}`,
        `Bearer ${token.toUpperCase()}`,
        `Bearer ${'x'.repeat(8000)}`,
        utf8Bytes(`Bearer ${token.slice(0, 20)}٣٣٣`),
        utf8Bytes(`Bearer ключ-${token}`),
        utf8Bytes(`Bearer ${token}\u00a0`),
        `Bearer ${token}\t${token}`,
      )
      .map((value) => ({
        defect: `Authorization ${JSON.stringify(value.slice(0, 60))}`,
        headers: replaced('Authorization', value),
        expect: unauthenticated,
      })),
    fc
      .tuple(fc.constantFrom(tenant.auth, 'Bearer x', 'Basic Zm9vOmJhcg=='), fc.constantFrom(tenant.auth, 'Bearer y'))
      .map(([first, second]) => ({
        defect: `Authorization twice (${first.slice(0, 12)}, ${second.slice(0, 12)})`,
        headers: twice('Authorization', first, second),
        expect: refused(400, 'DUPLICATE_HEADER'),
      })),
    OVERSIZED.map((size) => ({
      defect: `Authorization of ${size} bytes`,
      headers: replaced('Authorization', `Bearer ${'a'.repeat(size)}`),
      expect: refused(431, 'HEADERS_TOO_LARGE'),
    })),
    CONTROL.map((control) => ({
      defect: `Authorization with ${JSON.stringify(control)}`,
      headers: replaced('Authorization', `Bearer ${token.slice(0, 10)}${control}${token.slice(10)}`),
      raw: true,
      expect: refused(400, 'MALFORMED_REQUEST'),
    })),
  );
}

function idempotencyKeyDefects(operation: Operation): fc.Arbitrary<Draft> {
  const invalid = refused(400, 'IDEMPOTENCY_KEY_INVALID');
  return fc.oneof(
    ...(operation.idempotency === 'required'
      ? [
          fc.constant<Draft>({
            defect: 'Idempotency-Key missing',
            headers: without('Idempotency-Key'),
            expect: refused(400, 'IDEMPOTENCY_KEY_REQUIRED'),
          }),
        ]
      : []),
    fc.constant<Draft>({
      defect: 'Idempotency-Key empty',
      headers: replaced('Idempotency-Key', ''),
      expect: refused(400, 'IDEMPOTENCY_KEY_REQUIRED'),
    }),
    fc.integer({ min: 256, max: 12_000 }).map((length) => ({
      defect: `Idempotency-Key of ${length} characters`,
      headers: replaced('Idempotency-Key', 'k'.repeat(length)),
      expect: invalid,
    })),
    fc
      .constantFrom('key\tkey', utf8Bytes('ключ-1'), utf8Bytes('٣٣٣'), utf8Bytes('key-１'), utf8Bytes('🔑'), '\xff\xfe')
      .map((value) => ({
        defect: `Idempotency-Key ${JSON.stringify(value)}`,
        headers: replaced('Idempotency-Key', value),
        expect: invalid,
      })),
    fc.tuple(fc.constantFrom('k-1', ''), fc.constantFrom('k-1', 'k-2')).map(([first, second]) => ({
      defect: `Idempotency-Key twice (${JSON.stringify(first)}, ${JSON.stringify(second)})`,
      headers: twice('Idempotency-Key', first, second),
      expect: refused(400, 'DUPLICATE_HEADER'),
    })),
    OVERSIZED.map((size) => ({
      defect: `Idempotency-Key of ${size} bytes`,
      headers: replaced('Idempotency-Key', 'k'.repeat(size)),
      expect: refused(431, 'HEADERS_TOO_LARGE'),
    })),
    CONTROL.map((control) => ({
      defect: `Idempotency-Key with ${JSON.stringify(control)}`,
      headers: replaced('Idempotency-Key', `key${control}key`),
      raw: true,
      expect: refused(400, 'MALFORMED_REQUEST'),
    })),
  );
}

function workspaceDefects(tenant: Tenant): fc.Arbitrary<Draft> {
  const notFound = refused(404, 'WORKSPACE_NOT_FOUND');
  return fc.oneof(
    fc
      .constantFrom(
        'not-a-workspace',
        FAKE_ID,
        FAKE_ID.toUpperCase().replace(/-/g, ''),
        utf8Bytes(foreignDigits(tenant.sandboxWorkspaceId, '٣')),
        utf8Bytes(foreignDigits(tenant.sandboxWorkspaceId, '３')),
        utf8Bytes('lïve'),
        'live,sandbox',
        '__proto__',
        'constructor',
        'x'.repeat(8000),
      )
      .chain((value) =>
        fc.constant({
          defect: `X-Workspace-Id ${JSON.stringify(value.slice(0, 60))}`,
          headers: replaced('X-Workspace-Id', value),
          expect: notFound,
        }),
      ),
    fc.constant<Draft>({
      defect: "X-Workspace-Id of another organization's workspace",
      headers: replaced('X-Workspace-Id', tenant.foreignWorkspaceId),
      expect: refused(403, 'WORKSPACE_FORBIDDEN'),
    }),
    fc.constant<Draft>({
      defect: 'X-Workspace-Id of the sandbox with a live key',
      headers: replaced('X-Workspace-Id', tenant.sandboxWorkspaceId),
      expect: refused(403, 'WORKSPACE_MODE_MISMATCH'),
    }),
    fc.constantFrom('live', tenant.sandboxWorkspaceId, 'x').map((second) => ({
      defect: `X-Workspace-Id twice (live, ${second.slice(0, 12)})`,
      headers: twice('X-Workspace-Id', 'live', second),
      expect: refused(400, 'DUPLICATE_HEADER'),
    })),
    OVERSIZED.map((size) => ({
      defect: `X-Workspace-Id of ${size} bytes`,
      headers: replaced('X-Workspace-Id', 'w'.repeat(size)),
      expect: refused(431, 'HEADERS_TOO_LARGE'),
    })),
    CONTROL.map((control) => ({
      defect: `X-Workspace-Id with ${JSON.stringify(control)}`,
      headers: replaced('X-Workspace-Id', `live${control}`),
      raw: true,
      expect: refused(400, 'MALFORMED_REQUEST'),
    })),
  );
}

function contentTypeDefects(): fc.Arbitrary<Draft> {
  const unsupported = refused(415, 'UNSUPPORTED_MEDIA_TYPE');
  return fc.oneof(
    fc.constant<Draft>({ defect: 'Content-Type missing', headers: without('Content-Type'), expect: unsupported }),
    fc
      .constantFrom(
        'text/plain',
        'text/json',
        'application/xml',
        'application/x-www-form-urlencoded',
        'multipart/form-data; boundary=x',
        'application/octet-stream',
        'application/jsonp',
        'application/json-patch+json',
        'application',
        '*/*',
        ';;;',
        'application/json; charset=utf-16',
        'application/json; charset=UTF-16LE',
        'application/json; charset=latin1',
        'application/json;charset="utf-32"',
        `application/json; charset=${'x'.repeat(8000)}`,
        utf8Bytes('application/jsön'),
        utf8Bytes('ａｐｐｌｉｃａｔｉｏｎ/json'),
      )
      .map((value) => ({
        defect: `Content-Type ${JSON.stringify(value.slice(0, 60))}`,
        headers: replaced('Content-Type', value),
        expect: unsupported,
      })),
    fc.constantFrom('application/json', 'text/plain').map((second) => ({
      defect: `Content-Type twice (application/json, ${second})`,
      headers: twice('Content-Type', 'application/json', second),
      expect: refused(400, 'DUPLICATE_HEADER'),
    })),
    OVERSIZED.map((size) => ({
      defect: `Content-Type of ${size} bytes`,
      headers: replaced('Content-Type', `application/json; x=${'a'.repeat(size)}`),
      expect: refused(431, 'HEADERS_TOO_LARGE'),
    })),
    CONTROL.map((control) => ({
      defect: `Content-Type with ${JSON.stringify(control)}`,
      headers: replaced('Content-Type', `application/json${control}`),
      raw: true,
      expect: refused(400, 'MALFORMED_REQUEST'),
    })),
  );
}

/** A conditional GET tolerates any If-None-Match (it only decides 200 or 304) but the oversized and the unreadable. */
function ifNoneMatchDefects(): fc.Arbitrary<Draft> {
  const tag = word('0123456789abcdef', 32);
  return fc.oneof(
    fc
      .oneof(
        fc.constantFrom(
          '*',
          ' * ',
          '*, "a"',
          'W/"a"',
          'w/"a"',
          '"',
          '""',
          'W/',
          ',,,',
          'garbage',
          '"a" "b"',
          utf8Bytes('"ключ"'),
          '\xff',
        ),
        tag.map((value) => `"${value}"`),
        fc.array(tag, { minLength: 2, maxLength: 400 }).map((tags) => tags.map((value) => `W/"${value}"`).join(', ')),
      )
      .map((value) => ({
        defect: `If-None-Match ${JSON.stringify(value.slice(0, 60))}`,
        headers: replaced('If-None-Match', value),
        expect: TOLERATED,
      })),
    fc.constant<Draft>({ defect: 'If-None-Match twice', headers: twice('If-None-Match', '"a"', '*'), expect: TOLERATED }),
    OVERSIZED.map((size) => ({
      defect: `If-None-Match of ${size} bytes`,
      headers: replaced('If-None-Match', `"${'e'.repeat(size)}"`),
      expect: refused(431, 'HEADERS_TOO_LARGE'),
    })),
    CONTROL.map((control) => ({
      defect: `If-None-Match with ${JSON.stringify(control)}`,
      headers: replaced('If-None-Match', `"a${control}"`),
      raw: true,
      expect: refused(400, 'MALFORMED_REQUEST'),
    })),
  );
}

const SLOT = '\u0000slot\u0000';
const NESTING = fc.oneof(fc.integer({ min: 33, max: 64 }), fc.integer({ min: 65, max: 50_000 }));
const ONE_MB = 1024 * 1024;

function bodyDefects(operation: Operation, document: Schema): fc.Arbitrary<Draft> {
  const malformed = refused(400, 'MALFORMED_REQUEST');
  const options: Array<fc.Arbitrary<Draft>> = [
    fc
      .constantFrom('{', '{"a":', '[1,2', "{'a': 1}", 'a=1', '{"a":1}{"b":2}', '{"a":1,}', '{"a":NaN}', '{"a":Infinity}')
      .map((text) => ({
        defect: `not JSON ${JSON.stringify(text)}`,
        body: text,
        expect: malformed,
      })),
    fc
      .constantFrom('[]', '[{}]', '5', '"text"', 'true', 'null', '1e400')
      .map((text) => ({ defect: `body ${text}`, body: text, expect: refused() })),
    fc.tuple(NESTING, fc.boolean()).map(([depth, arrays]) => ({
      defect: `${arrays ? 'arrays' : 'objects'} nested ${depth} deep`,
      body: arrays ? `{"x_deep":${'['.repeat(depth)}${']'.repeat(depth)}}` : `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`,
      expect: malformed,
    })),
    fc.integer({ min: ONE_MB, max: ONE_MB + 4096 }).map((size) => ({
      defect: `a string of ${size} characters`,
      body: `{"x_huge":"${'x'.repeat(size)}"}`,
      expect: refused(413, 'PAYLOAD_TOO_LARGE'),
    })),
    fc.integer({ min: 100, max: 400 }).map((count) => ({
      defect: `${count} unknown fields`,
      body: JSON.stringify(Object.fromEntries(Array.from({ length: count }, (_, index) => [`x_${index}`, index]))),
      expect: refused(),
    })),
  ];
  const paths = objectPaths(document, operation.bodySchema);
  // Prototype keys, at the root and inside every object the schema nests: poisoning is refused by the parser.
  options.push(
    fc
      .tuple(
        fc.constantFrom(...paths),
        fc.constantFrom('{"__proto__":{"admin":true}}', '{"constructor":{"prototype":{"admin":true}}}', '{"a":1,"__proto__":[]}'),
      )
      .map(([path, inner]) => ({
        defect: `${inner.slice(0, 30)} at /${path.join('/')}`,
        body: placed(path, inner),
        expect: malformed,
      })),
  );
  // Plain `constructor`/`prototype` keys at the root are unknown fields.
  options.push(
    fc
      .constantFrom('{"constructor":1}', '{"prototype":{}}', '{"toString":"x"}', '{"hasOwnProperty":null}')
      .map((text) => ({ defect: `root ${text}`, body: text, expect: refused(400) })),
  );
  // One property of the otherwise valid body spoiled: a value of another JSON type, or one its kind refuses.
  const valid = exemplaryBody(document, operation.bodySchema);
  for (const [name, property] of Object.entries<Schema>(operation.bodySchema?.properties ?? {})) {
    const schema = resolveSchema(document, property);
    if (!schema?.type) continue;
    // Some fields are checked by their aggregate (membership terms), after the resource is found: any refusal.
    options.push(
      wrongType(schema).map((value) => ({
        defect: `${name}: ${JSON.stringify(value)}`,
        body: JSON.stringify({ ...valid, [name]: value }),
        expect: refused(),
      })),
    );
  }
  // Text the database cannot store and text backtracking scanners choke on, in every text field at any depth (issue 19).
  const texts = textFields(document, operation.bodySchema);
  options.push(
    fc.constantFrom(...paths).map((path) => ({
      defect: `a key holding NUL at /${path.join('/')}`,
      body: placed(path, '{"na\\u0000me":1}'),
      expect: refused(400, 'VALIDATION_ERROR'),
    })),
  );
  if (texts.length > 0)
    options.push(
      fc.tuple(fc.constantFrom(...texts), fc.constantFrom(...NUL_TEXTS)).map(([field, text]) => ({
        defect: `${label(field)}: ${JSON.stringify(text)}`,
        body: bodyWithText(valid, field, text),
        expect: refused(400, 'VALIDATION_ERROR'),
      })),
      fc.tuple(fc.constantFrom(...texts), fc.constantFrom(...PLACEHOLDER_WORST_CASES)).map(([field, [shape, text]]) => ({
        defect: `${label(field)}: ${shape} (${field.maxLength} characters)`,
        body: withUndeclaredField(bodyWithText(valid, field, text(field.maxLength))),
        expect: refused(400),
      })),
    );
  for (const [name, property] of Object.entries<Schema>(operation.bodySchema?.properties ?? {})) {
    const values = refusedValues(kindOf(document, property), resolveSchema(document, property)?.example);
    const spoiled = JSON.stringify({ ...valid, [name]: SLOT });
    if (values.length > 0)
      options.push(
        fc.constantFrom(...values).map((value) => ({
          defect: `${name}: ${value.slice(0, 40)}`,
          body: spoiled.replace(JSON.stringify(SLOT), () => value),
          expect: refused(),
        })),
      );
  }
  return fc.oneof(...options);
}

/** The body properties holding a template document, found by its shape (blocks and a footer), with a valid example of it. */
function templateDocumentProperties(
  document: Schema,
  body: Schema | undefined,
): Array<{ name: string; schema: Schema; example: Schema }> {
  return Object.entries<Schema>(body?.properties ?? {}).flatMap(([name, property]) => {
    const schema = resolveSchema(document, property) ?? property;
    const example = property.example ?? schema.example;
    return schema.properties?.blocks?.items?.oneOf && schema.properties?.footer && example ? [{ name, schema, example }] : [];
  });
}

/** A block variant with every required property filled: its const, its first enum value, null, false or text. */
function blockOf(variant: Schema, fill: Record<string, unknown>): Schema {
  return Object.fromEntries(
    (variant.required as string[]).map((name) => {
      if (fill[name] !== undefined) return [name, fill[name]];
      const property = variant.properties[name];
      const types = [property.type].flat();
      if (property.const !== undefined) return [name, property.const];
      if (property.enum) return [name, property.enum[0]];
      if (types.includes('null')) return [name, null];
      if (types.includes('boolean')) return [name, false];
      if (types.includes('array')) return [name, [property.items?.enum?.[0] ?? 'x']];
      return [name, 'x'];
    }),
  );
}

const lineFlood = (maxLength: number) => 'a\n'.repeat(Math.floor(maxLength / 2) - 1) + 'a';
/** Compresses to about 24 KB: what a logo may weigh, never what it may decode to. */
const HUGE_LOGO = pngDataUri({ width: 2048, height: 2048, rgba: [0, 0, 0, 0] });
const WIDEST_ALLOWED_LOGO = pngDataUri({ width: 1024, height: 1024, rgba: [0, 0, 0, 0] });
const PROSE = 'Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt. ';

/**
 * Documents that make a render cost far more than their size (issue 19), for every body property
 * holding a template document: a footer of line breaks taller than the page, the longest free
 * text of line breaks in 16 blocks and in the most blocks allowed, an e-mail body of line breaks,
 * a logo that decodes to 16 MB shown by every header block. Each must be refused. A pure
 * operation (a preview) also gets the heaviest documents it must still render (every block of
 * prose; the largest logo allowed in every block): answered, without a 5xx.
 */
export function amplifyingDocuments(operation: Operation, document: Schema, tenant: Tenant): Draft[] {
  const valid = exemplaryBody(document, operation.bodySchema);
  // A real template where the route names one: the document is then read, not refused for its unknown id first.
  const real = Object.entries(tenant.readableIds).find(([prefix]) => operation.path.startsWith(prefix));
  const drafts: Draft[] = [];
  for (const { name, schema, example } of templateDocumentProperties(document, operation.bodySchema)) {
    const add = (defect: string, spoiled: Schema, expect: Expectation) =>
      drafts.push({
        family: 'amplifying document',
        defect: `${name}: ${defect}`,
        body: JSON.stringify({ ...valid, [name]: { ...example, ...spoiled } }),
        path: real && { id: real[1] },
        // A render that succeeds is sent without the (optional) key: a stored success would read as an effect.
        ...(!expect.refused && { headers: without('Idempotency-Key') }),
        expect,
      });
    const { blocks, footer, branding, email } = schema.properties;
    const most: number = blocks.maxItems;
    const legal = footer.properties?.legal_text;
    if (legal?.maxLength)
      add(
        `a footer of ${Math.floor(legal.maxLength / 2)} lines`,
        { footer: { ...example.footer, legal_text: lineFlood(legal.maxLength) } },
        refused(),
      );
    const variants = blocks.items.oneOf as Schema[];
    const longestText = (variant: Schema) =>
      Object.entries<Schema>(variant.properties).find(
        ([key, property]) => key !== 'type' && property.minLength >= 1 && property.maxLength >= 1000,
      );
    const freeText = variants.find(longestText);
    if (freeText) {
      const [field, text] = longestText(freeText)!;
      const filled = (count: number, value: string) => Array.from({ length: count }, () => blockOf(freeText, { [field]: value }));
      for (const count of [16, most])
        add(
          `${count} blocks of ${Math.floor(text.maxLength / 2)} line breaks`,
          { blocks: filled(count, lineFlood(text.maxLength)) },
          refused(),
        );
      if (operation.pure)
        add(`${most} blocks of prose`, { blocks: filled(most, PROSE.repeat(60).slice(0, text.maxLength)) }, TOLERATED);
    }
    const mailBody = email?.properties?.body;
    if (mailBody?.maxLength)
      add(
        `an e-mail body of ${Math.floor(mailBody.maxLength / 2)} lines`,
        { email: { subject: 'x', preheader: null, body: lineFlood(mailBody.maxLength) } },
        refused(),
      );
    const header = variants.find((variant) => variant.properties.show_logo);
    if (header && branding?.properties?.logo) {
      const logoed = (logo: string) => ({
        branding: { ...example.branding, logo },
        blocks: Array.from({ length: most }, () => blockOf(header, { show_logo: true })),
      });
      add(`a 2048 × 2048 logo in ${most} header blocks`, logoed(HUGE_LOGO), refused());
      if (operation.pure) add(`a 1024 × 1024 logo in ${most} header blocks`, logoed(WIDEST_ALLOWED_LOGO), TOLERATED);
    }
  }
  return drafts;
}

/** A value of another JSON type than the schema's. */
function wrongType(schema: Schema): fc.Arbitrary<unknown> {
  const types = [schema.type].flat();
  const candidates: Array<fc.Arbitrary<unknown>> = [];
  if (!types.includes('string')) candidates.push(fc.string({ maxLength: 8 }));
  if (!types.includes('number') && !types.includes('integer')) candidates.push(fc.integer());
  if (!types.includes('boolean')) candidates.push(fc.boolean());
  if (!types.includes('object'))
    candidates.push(fc.dictionary(word('abcdefghijklmnopqrstuvwxyz', 5), fc.integer(), { minKeys: 1, maxKeys: 2 }));
  if (!types.includes('array')) candidates.push(fc.array(fc.integer(), { minLength: 1, maxLength: 2 }));
  return fc.oneof(...candidates);
}

/** A parameter documented as a UUID: by its format, or by its example (in the schema, or in the description). */
function documentsUuid(parameter: Schema): boolean {
  const schema = parameter.schema ?? {};
  if (schema.format === 'uuid') return true;
  const example = schema.example ?? parameter.example ?? /Example: `([^`]*)`/.exec(parameter.description ?? '')?.[1];
  return typeof example === 'string' && UUID.test(example);
}

/** A query value its parameter refuses (a format, an enum, a boolean), or undefined when any text is tolerated. */
function badQueryValue(parameter: Schema): fc.Arbitrary<string> | undefined {
  const schema = parameter.schema ?? {};
  if (parameter.name === 'limit') return undefined;
  if (schema.enum) return fc.constantFrom('bogus', `${schema.enum[0]}x`, '', ' ', ...PROTOTYPE_NAMES);
  if (documentsUuid(parameter)) return fc.constantFrom('not-a-uuid', '0', '', foreignDigits(FAKE_ID, '٣'));
  if (schema.format === 'date-time' || /(_at|_after|_before|_for)$/.test(parameter.name))
    return fc.constantFrom('yesterday', '1700000000000', '2026-13-01', foreignDigits('2026-11-25T10:00:00Z', '３'));
  if (schema.type === 'boolean') return fc.constantFrom('maybe', '2', 'TRUE ', '١');
  if (parameter.name === 'cursor') return fc.constantFrom('v1.bogus.sig', 'x', '__proto__');
  return undefined;
}

/** Query values: bad formats where the parameter has one, non-ASCII digits, prototype names, long values. */
function queryDefects(operation: Operation): fc.Arbitrary<Draft> {
  const tolerated = operation.method === 'get' ? TOLERATED : refused();
  const options: Array<fc.Arbitrary<Draft>> = [
    fc
      .oneof(
        fc.constantFrom(...PROTOTYPE_NAMES),
        word('abcdefghijklmnopqrstuvwxyz_', 10).map((name) => `x_${name}`),
      )
      .map((name) => ({
        defect: `unknown query ${name}`,
        query: `${encodeURIComponent(name)}=1`,
        expect: refused(400),
      })),
  ];
  // A NUL (refused before anything reads the query) and the placeholder worst cases ('+' is a space in a query string).
  options.push(
    fc.constantFrom(...operation.query.map((parameter) => parameter.name), 'x_undeclared').map((name) => ({
      defect: `query ${name}=a%00b`,
      query: `${encodeURIComponent(name)}=a%00b`,
      expect: refused(400, 'VALIDATION_ERROR'),
    })),
  );
  if (operation.query.length > 0)
    options.push(
      fc
        .tuple(
          fc.constantFrom(...operation.query.map((parameter) => parameter.name)),
          fc.constantFrom('%7B%7B' + '+'.repeat(12_000), '%7B%7B+'.repeat(1_500), '%7B%7B' + '+a'.repeat(5_000)),
        )
        .map(([name, value]) => ({
          defect: `query ${name}=${value.slice(0, 20)}… (${value.length} bytes)`,
          query: `${encodeURIComponent(name)}=${value}`,
          expect: tolerated,
        })),
    );
  for (const parameter of operation.query) {
    const bad = badQueryValue(parameter);
    if (bad)
      options.push(
        bad.map((value) => ({
          defect: `query ${parameter.name}=${value}`,
          query: `${parameter.name}=${encodeURIComponent(value)}`,
          expect: refused(),
        })),
      );
    options.push(
      fc
        .oneof(
          fc.constantFrom(
            ...FOREIGN_DIGITS.map((digit) => digit.repeat(3)),
            ...PROTOTYPE_NAMES,
            '1e400',
            '18446744073709551616',
            '-0',
            '%',
            '',
          ),
          fc.integer({ min: 1000, max: 12_000 }).map((length) => 'q'.repeat(length)),
        )
        .map((value) => ({
          defect: `query ${parameter.name}=${value.slice(0, 40)}`,
          query: `${parameter.name}=${encodeURIComponent(value)}`,
          expect: tolerated,
        })),
    );
  }
  return fc.oneof(...options);
}

/** Path ids no resource has: the wrong shape, other digits, prototype names, too long, badly encoded. */
function pathDefects(operation: Operation): fc.Arbitrary<Draft> {
  const values = fc.constantFrom(
    'not-an-id',
    encodeURIComponent(foreignDigits(FAKE_ID, '٣')),
    encodeURIComponent(foreignDigits(FAKE_ID, '３')),
    encodeURIComponent('٣'),
    '__proto__',
    'constructor',
    'toString',
    '18446744073709551616',
    '1e400',
    '-0',
    '%00',
    '%E0%A4%A',
    '%',
    'x'.repeat(101),
    'x'.repeat(4000),
    FAKE_ID.toUpperCase(),
  );
  return fc.tuple(fc.constantFrom(...operation.pathParams), values).map(([name, value]) => ({
    defect: `path ${name}=${value.slice(0, 40)}`,
    path: { [name]: value },
    expect: refused(),
  }));
}

/** Every defect an operation can carry, weighted so that each family gets a fair share. */
export function defectsOf(operation: Operation, document: Schema, tenant: Tenant): fc.Arbitrary<Draft> {
  const hasBody = operation.bodySchema !== undefined;
  const families: Array<fc.WeightedArbitrary<Draft>> = [];
  const add = (family: string, weight: number, arbitrary: fc.Arbitrary<Draft>) =>
    families.push({ weight, arbitrary: arbitrary.map((draft) => ({ ...draft, family })) });
  if (operation.secured) {
    add('Authorization', 3, authorizationDefects(tenant));
    add('X-Workspace-Id', 2, workspaceDefects(tenant));
  }
  if (operation.idempotency !== 'none') add('Idempotency-Key', 3, idempotencyKeyDefects(operation));
  if (hasBody) {
    add('Content-Type', 2, contentTypeDefects());
    add('body', 5, bodyDefects(operation, document));
    const amplifying = amplifyingDocuments(operation, document, tenant);
    if (amplifying.length > 0) add('amplifying document', 2, fc.constantFrom(...amplifying));
  }
  if (operation.method === 'get') add('If-None-Match', 1, ifNoneMatchDefects());
  if (operation.query.length > 0 || operation.method === 'get') add('query', 2, queryDefects(operation));
  if (operation.pathParams.length > 0) add('path', 2, pathDefects(operation));
  return fc.oneof(...families);
}

/** The request a draft describes: the operation's valid request (exemplary body, standard headers) spoiled once. */
export function requestOf(
  operation: Operation,
  document: Schema,
  tenant: Tenant,
  draft: Draft,
  idempotencyKey: string,
): BadRequest {
  const standard: Array<[string, string]> = [];
  if (operation.secured) standard.push(['Authorization', tenant.auth]);
  if (operation.idempotency !== 'none') standard.push(['Idempotency-Key', idempotencyKey]);
  const body =
    draft.body === null
      ? undefined
      : (draft.body ?? (operation.bodySchema ? JSON.stringify(exemplaryBody(document, operation.bodySchema)) : undefined));
  if (body !== undefined) standard.push(['Content-Type', 'application/json']);
  const headers = draft.headers ? draft.headers(standard) : standard;
  const path = concrete(operation, tenant, draft.path);
  const method = operation.method.toUpperCase();
  const request: BadRequest = {
    operation: operation.label,
    family: draft.family ?? 'other',
    defect: draft.defect,
    method,
    path: draft.query ? `${path}?${draft.query}` : path,
    headers,
    body,
    expect: draft.expect,
  };
  if (draft.raw) {
    const lines = [
      `${method} ${request.path} HTTP/1.1`,
      'Host: 127.0.0.1',
      ...headers.map(([name, value]) => `${name}: ${value}`),
      'Connection: close',
    ];
    if (method !== 'GET') lines.push(`Content-Length: ${Buffer.byteLength(body ?? '')}`);
    request.bytes = Buffer.concat([Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'latin1'), Buffer.from(body ?? '', 'utf8')]);
  }
  return request;
}

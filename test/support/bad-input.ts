import { OutboxRelay } from '@app/shared-kernel';
import fc from 'fast-check';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { pathSpellings } from './path-spellings';
import { tableDigests } from './table-digest';
import { idem } from './tenants';
import { TestApp } from './test-app';

/**
 * R8 machinery: valid requests spoiled by exactly one defect the contract refuses (an unknown
 * or mass-assigned field, a field of the wrong JSON type, a malformed decimal, an id that is not
 * the caller's, a body that is not a JSON object, arrays nested deeper than the edge allows, a body that is not JSON at all: 415). Every answer must be a 4xx in the contract's
 * error shape; the suites then check that their tables hash as before.
 */

/**
 * positive: > 0 at the currency's precision; signed: ≠ 0; limit: ≥ 0; rate: > 0, up to 12 decimals;
 * decimal: any sign, at most 18 integer and 12 fraction digits (catalog costs).
 */
export type AmountKind = 'positive' | 'signed' | 'limit' | 'rate' | 'decimal';

export type Ids = Record<string, string>;

export interface BadInputRoute {
  name: string;
  method: 'post' | 'patch' | 'put';
  path: (ids: Ids) => string;
  /** A body the route accepts; every generated request spoils it in exactly one place. */
  body: (ids: Ids) => Record<string, unknown>;
  /** Fields holding a decimal (dotted for nested ones, array items by index: `debits.0.amount`), with what they accept. */
  amounts?: Array<{ field: string; kind: AmountKind }>;
  /** Whether the route names a resource by id (path or body). */
  takesIds: boolean;
  /** Values of the wrong type per field (dotted paths reach nested ones); by default every top-level body field must be a string. */
  wrongTypes?: Record<string, fc.Arbitrary<unknown>>;
  /** Public routes take no Authorization and no Idempotency-Key. */
  public?: boolean;
  /** Fields the route takes beyond its valid body (a plan's `status`): never sent as unknown ones. */
  declared?: string[];
}

export type Defect =
  | { kind: 'unknown_field'; name: string; value: unknown }
  | { kind: 'wrong_type'; field: string; value: unknown }
  | { kind: 'bad_amount'; field: string; value: string }
  | { kind: 'foreign_id'; id: string }
  /** The path keeps the caller's own ids; only the ids the body names are another tenant's (`id` absent) or made up. */
  | { kind: 'foreign_body_id'; id?: string }
  | { kind: 'not_json'; text: string }
  | { kind: 'media_type'; type: string; text: string }
  | { kind: 'too_deep'; field: string; depth: number };

/** Deeper than the 32 levels the edge accepts, up to about 40 KB of brackets (once a 500: a stack overflow). */
const TOO_DEEP = fc.oneof(fc.integer({ min: 33, max: 64 }), fc.integer({ min: 65, max: 20_000 }));

const jsonValue = fc.oneof(
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.boolean(),
  fc.constant(null),
  fc.string({ maxLength: 20 }),
  fc.array(fc.integer(), { maxLength: 3 }),
  fc.dictionary(fc.string({ maxLength: 5 }), fc.integer(), { maxKeys: 2 }),
);
/** Not a string, so never valid where a string (amount, id, currency, name, date) is expected. */
export const nonString = fc.oneof(
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.boolean(),
  fc.array(fc.string({ maxLength: 3 }), { maxLength: 2 }),
  fc.dictionary(fc.string({ maxLength: 5 }), fc.string({ maxLength: 5 }), { maxKeys: 2 }),
);
/** Not an array, so never valid where a list (scopes, IP ranges) is expected. */
export const nonArray = fc.oneof(
  fc.integer(),
  fc.boolean(),
  fc.string({ maxLength: 12 }),
  fc.dictionary(fc.string({ maxLength: 5 }), fc.integer(), { maxKeys: 2 }),
);
/** Not a decimal string at all: exponents, signs, blanks, separators, other digits, words, too many digits. */
const malformedDecimal = fc.oneof(
  fc.constantFrom('', ' ', '1e3', '+1.00', '1.', '.5', '1,00', '0x10', 'NaN', 'Infinity', '--1', '1..0', '1 000.00', '1.00 EUR'),
  fc.constantFrom('99999999999999999999.00', '１.００', '١٠', ' 1.00', '1.00\n'),
  fc.stringMatching(/^[a-z]{1,8}$/),
);
const BAD_DECIMALS: Record<AmountKind, fc.Arbitrary<string>> = {
  positive: fc.oneof(malformedDecimal, fc.constantFrom('0', '0.00', '-0', '-1.00', '1.001', '0.000001')),
  signed: fc.oneof(malformedDecimal, fc.constantFrom('0', '0.00', '-0', '1.001', '-0.001')),
  limit: fc.oneof(malformedDecimal, fc.constantFrom('1.001', '0.0001')),
  rate: fc.oneof(malformedDecimal, fc.constantFrom('0', '0.0', '-1', '1.0000000000001')),
  decimal: fc.oneof(
    malformedDecimal,
    fc.constantFrom('1.0000000000001', '-0.1234567890123', '1234567890123456789', '-1234567890123456789.5'),
  ),
};

function parsesAsJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

function defectsFor(route: BadInputRoute, ids: Ids): fc.Arbitrary<Defect> {
  const wrongTypes =
    route.wrongTypes ??
    Object.fromEntries(Object.keys(route.body(ids)).map((field) => [field, nonString as fc.Arbitrary<unknown>]));
  const options: Array<fc.Arbitrary<Defect>> = [
    fc.record({
      kind: fc.constant('unknown_field' as const),
      // Mass-assigned fields of the resources, or names no route knows.
      name: fc.oneof(
        fc.constantFrom(
          ...['id', 'wallet_id', 'cash_balance', 'held_balance', 'version', 'workspace_id', 'organization_id', 'status'].filter(
            (name) => !(route.declared ?? []).includes(name),
          ),
        ),
        fc.stringMatching(/^[a-z_]{1,12}$/).map((name) => `x_${name}`),
      ),
      value: jsonValue,
    }),
    fc.record({
      kind: fc.constant('not_json' as const),
      text: fc
        .oneof(
          fc.constantFrom('{', '{"amount":', '[1,2', "{'amount': '1'}", 'amount=1'),
          fc.string({ minLength: 1, maxLength: 12 }),
        )
        .filter((text) => !parsesAsJson(text)),
    }),
    // JSON, but not an object.
    fc.record({ kind: fc.constant('not_json' as const), text: fc.constantFrom('[]', '[{}]', '5', '"amount"', 'true', 'null') }),
    // Nested arrays where a field (or an unknown one) is expected.
    fc.record({
      kind: fc.constant('too_deep' as const),
      field: fc.constantFrom(...Object.keys(route.body(ids)), 'x_nested'),
      depth: TOO_DEEP,
    }),
    // The route's own valid body, sent as anything but JSON: always 415.
    fc.record({
      kind: fc.constant('media_type' as const),
      type: fc.constantFrom(
        'application/x-www-form-urlencoded',
        'text/plain',
        'multipart/form-data; boundary=x',
        'application/xml',
        'application/octet-stream',
      ),
      text: fc.constant(new URLSearchParams(stringFields(route.body(ids))).toString()),
    }),
  ];
  if (route.takesIds) {
    options.push(
      fc.record({ kind: fc.constant('foreign_id' as const), id: fc.oneof(fc.uuid(), fc.stringMatching(/^[a-z0-9-]{1,40}$/)) }),
    );
  }
  if (bodyOnlyIds(route, ids).length > 0) {
    options.push(
      fc.record({
        kind: fc.constant('foreign_body_id' as const),
        id: fc.oneof(fc.uuid(), fc.stringMatching(/^[a-z0-9_]{1,40}$/)),
      }),
    );
  }
  for (const [field, value] of Object.entries(wrongTypes)) {
    options.push(fc.record({ kind: fc.constant('wrong_type' as const), field: fc.constant(field), value }));
  }
  for (const { field, kind } of route.amounts ?? []) {
    options.push(fc.record({ kind: fc.constant('bad_amount' as const), field: fc.constant(field), value: BAD_DECIMALS[kind] }));
  }
  return fc.oneof(...options);
}

/**
 * The body with one field replaced, the field named by its dotted path: `amount`, `amount.value`,
 * or through an array by index, `debits.3.amount` (a batch's fourth item).
 */
function withValueAt(body: Record<string, any>, path: string, value: unknown): Record<string, any> {
  const names = path.split('.');
  let container: any = body;
  for (const name of names.slice(0, -1)) container = container[Array.isArray(container) ? Number(name) : name];
  const last = names[names.length - 1];
  container[Array.isArray(container) ? Number(last) : last] = value;
  return body;
}

/** The body's top-level fields as a form would carry them. */
function stringFields(body: Record<string, unknown>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(body).map(([name, value]) => [name, typeof value === 'string' ? value : JSON.stringify(value)]),
  );
}

/** The names of the ids a route's body refers to and its path does not. */
function bodyOnlyIds(route: BadInputRoute, ids: Ids): string[] {
  const body = JSON.stringify(route.body(ids));
  const path = route.path(ids);
  return Object.keys(ids).filter((name) => body.includes(`"${ids[name]}"`) && !path.includes(ids[name]));
}

function spoiled(
  route: BadInputRoute,
  ids: Ids,
  defect: Defect,
  foreignIds: Ids,
): { path: string; body?: unknown; text?: string; type?: string } {
  const body: Record<string, any> = structuredClone(route.body(ids));
  switch (defect.kind) {
    case 'unknown_field':
      return { path: route.path(ids), body: { ...body, [defect.name]: defect.value } };
    case 'wrong_type':
    case 'bad_amount':
      return { path: route.path(ids), body: withValueAt(body, defect.field, defect.value) };
    case 'foreign_id': {
      // Another tenant's or a made-up id, wherever the route takes one.
      const foreign = Object.fromEntries(Object.keys(ids).map((name) => [name, defect.id]));
      return { path: route.path(foreign), body: route.body(foreign) };
    }
    case 'foreign_body_id': {
      const names = bodyOnlyIds(route, ids);
      const foreign = { ...ids, ...Object.fromEntries(names.map((name) => [name, defect.id ?? foreignIds[name]])) };
      return { path: route.path(ids), body: route.body(foreign) };
    }
    case 'not_json':
      return { path: route.path(ids), text: defect.text };
    case 'too_deep': {
      // Written as text (JSON.stringify itself recurses): the field moves last, its value becomes the nesting.
      const rest = { ...body };
      delete rest[defect.field];
      const nested = `${'['.repeat(defect.depth)}${']'.repeat(defect.depth)}`;
      return { path: route.path(ids), text: JSON.stringify({ ...rest, [defect.field]: 0 }).replace(/:0}$/, `:${nested}}`) };
    }
    case 'media_type':
      return { path: route.path(ids), text: defect.text, type: defect.type };
  }
}

/**
 * Sends `runs` spoiled requests per route; returns every answer that is not a well-formed 4xx.
 * `foreignId` (another tenant's resource) is tried as often as one defect in ten, and so are
 * `foreignIds` (another tenant's resource of each kind, by id name: a payment method for `card`)
 * where the body alone names them.
 */
async function sendBadInput(
  t: TestApp,
  options: { auth: string; routes: BadInputRoute[]; ids: Ids; foreignId: string; foreignIds?: Ids; seed: number; runs: number },
): Promise<string[]> {
  const unexpected: string[] = [];
  const foreignIds = {
    ...Object.fromEntries(Object.keys(options.ids).map((name) => [name, options.foreignId])),
    ...options.foreignIds,
  };
  for (const [index, route] of options.routes.entries()) {
    const foreign = fc.constant<Defect>({ kind: 'foreign_id', id: options.foreignId });
    const foreignInBody = fc.constant<Defect>({ kind: 'foreign_body_id' });
    const arbitrary = fc.oneof(
      ...(route.takesIds ? [{ weight: 1, arbitrary: foreign }] : []),
      ...(bodyOnlyIds(route, options.ids).length > 0 ? [{ weight: 1, arbitrary: foreignInBody }] : []),
      { weight: 9, arbitrary: defectsFor(route, options.ids) },
    );
    for (const defect of fc.sample(arbitrary, { seed: options.seed + index, numRuns: options.runs })) {
      const { path, body, text, type } = spoiled(route, options.ids, defect, foreignIds);
      let pending = t.http[route.method](path);
      if (!route.public) pending = pending.set('Authorization', options.auth).set('Idempotency-Key', idem());
      pending =
        text === undefined ? pending.send(body as object) : pending.set('Content-Type', type ?? 'application/json').send(text);
      const response: request.Response = await pending.then((r) => r);
      const wellFormed =
        isContractRefusal(response.status, response.body, response.headers['request-id']) &&
        (defect.kind !== 'media_type' || response.status === 415);
      if (!wellFormed)
        unexpected.push(`${route.name} ${JSON.stringify(defect)} → ${response.status} ${response.text.slice(0, 200)}`);
    }
  }
  return unexpected;
}

/** Sends the spoiled requests; every answer must be a well-formed 4xx and every listed table unchanged. */
export async function expectEveryDefectRefused(
  t: TestApp,
  options: Parameters<typeof sendBadInput>[1] & { tables: Record<string, string[]> },
): Promise<void> {
  const db = t.app.get(DataSource);
  const before = await tableDigests(db, options.tables);
  const unexpected = await sendBadInput(t, options);
  expect(unexpected.slice(0, 20)).toEqual([]);
  expect(await tableDigests(db, options.tables)).toEqual(before);
}

/**
 * Each keyed POST route is sent its valid request once, then the same request under the same
 * Idempotency-Key through every other spelling of its path (upper-case ids, a percent-encoded
 * digit, no /v1): each must replay the first answer byte for byte (a completed transfer: 409
 * IDEMPOTENCY_KEY_ALREADY_PROCESSED), and the listed tables must not change after the first.
 */
export async function expectRespelledPathsReplayed(
  t: TestApp,
  options: { auth: string; routes: BadInputRoute[]; ids: Ids; tables: Record<string, string[]> },
): Promise<void> {
  const db = t.app.get(DataSource);
  const unexpected: string[] = [];
  for (const route of options.routes.filter((candidate) => candidate.method === 'post' && !candidate.public)) {
    const key = idem();
    const body = route.body(options.ids);
    const send = (path: string) =>
      t.http
        .post(path)
        .set('Authorization', options.auth)
        .set('Idempotency-Key', key)
        .send(body)
        .then((response) => response);
    const first = await send(route.path(options.ids));
    // Effects delivered through the outbox (a new customer's primary wallet) belong to the first request.
    await t.app.get(OutboxRelay).wake();
    const after = await tableDigests(db, options.tables);
    for (const { spelling, path } of pathSpellings(route.path(options.ids))) {
      const again = await send(path);
      const replayed = again.headers['idempotent-replayed'] === 'true' && again.text === first.text;
      const completed =
        first.status < 300 && again.status === 409 && again.body?.error?.code === 'IDEMPOTENCY_KEY_ALREADY_PROCESSED';
      if (!replayed && !completed) unexpected.push(`${route.name} (${spelling}) → ${again.status} ${again.text.slice(0, 200)}`);
    }
    await t.app.get(OutboxRelay).wake();
    expect({ route: route.name, tables: await tableDigests(db, options.tables) }).toEqual({ route: route.name, tables: after });
  }
  expect(unexpected).toEqual([]);
}

export { tableDigests };

/**
 * Whether an answer is a refusal in the contract's error shape: a 4xx whose body is
 * `{error: {type, code, message, status, request_id}}`, status and request id echoed.
 */
export function isContractRefusal(status: number, body: any, requestId: string | undefined): boolean {
  const error = body?.error;
  return (
    status >= 400 &&
    status < 500 &&
    error?.status === status &&
    typeof error?.code === 'string' &&
    typeof error?.type === 'string' &&
    typeof error?.message === 'string' &&
    error?.request_id === requestId
  );
}

export function badInputSeed(): number {
  return process.env.SEED ? Number(process.env.SEED) : Math.floor(Math.random() * 2 ** 31);
}

export const BAD_INPUT_RUNS = Number(process.env.BAD_INPUT_RUNS ?? 300);

export interface BadQueryRoute {
  name: string;
  path: (ids: Ids) => string;
  /** Known parameters and values each one refuses (400). */
  refused: Record<string, fc.Arbitrary<string>>;
  /** Known parameters whose bad values are tolerated by design (e.g. `limit` is clamped): only no 5xx. */
  tolerated?: Record<string, fc.Arbitrary<string>>;
}

type QueryDefect =
  | { kind: 'unknown_param'; name: string; value: string }
  | { kind: 'refused_value'; name: string; value: string }
  | { kind: 'tolerated_value'; name: string; value: string }
  | { kind: 'repeated'; name: string; values: [string, string] }
  | { kind: 'foreign_id'; id: string };

/** Values no timestamp parameter accepts. */
export const badTimestamp = fc.constantFrom(
  'yesterday',
  '2026-13-45',
  '2026-11-22',
  '1700000000000',
  '2026-11-22 10:00:00',
  'T',
  '',
);
/** Values no id parameter accepts. */
export const badUuid = fc.oneof(fc.constantFrom('', 'null', '0', '0193a5c2-7f4e-7b1a-9c1d'), fc.stringMatching(/^[a-z]{1,12}$/));
export const badBoolean = fc.constantFrom('yes', '1', '0', 'TRUE', 'on', '');
export const badCursor = fc.oneof(
  fc.constantFrom('v1.', 'v1.e30.AAAA', 'v2.WyJ4Il0.CmjKE3kUxvP9yqkn7KhqPg', '....'),
  fc.stringMatching(/^[A-Za-z0-9_.-]{1,60}$/),
);
export const anyLimit = fc.constantFrom('0', '-1', '1.5', 'abc', '', '1e2', '99999999999999999999', '201', ' 5');

/**
 * GETs with one defect in the query string or path: unknown parameters, refused values, repeated
 * parameters and foreign ids must be answered 4xx in the contract's shape; tolerated values
 * anything but a 5xx.
 */
export async function expectEveryBadQueryAnswered(
  t: TestApp,
  options: { auth: string; routes: BadQueryRoute[]; ids: Ids; foreignId: string; seed: number; runs: number },
): Promise<void> {
  const unexpected: string[] = [];
  for (const [index, route] of options.routes.entries()) {
    const entries = (record: Record<string, fc.Arbitrary<string>> | undefined) => Object.entries(record ?? {});
    const names = [...entries(route.refused), ...entries(route.tolerated)].map(([name]) => name);
    const defects: Array<fc.Arbitrary<QueryDefect>> = [
      fc.record({
        kind: fc.constant('unknown_param' as const),
        name: fc.oneof(
          fc.constantFrom('workspace_id', 'organization_id', 'offset', 'page', 'sort'),
          fc.stringMatching(/^[a-z_]{1,12}$/).map((name) => `x_${name}`),
        ),
        value: fc.string({ maxLength: 10 }),
      }),
      ...entries(route.refused).map(([name, value]) =>
        fc.record({ kind: fc.constant('refused_value' as const), name: fc.constant(name), value }),
      ),
      ...entries(route.tolerated).map(([name, value]) =>
        fc.record({ kind: fc.constant('tolerated_value' as const), name: fc.constant(name), value }),
      ),
    ];
    if (names.length > 0) {
      defects.push(
        fc.record({
          kind: fc.constant('repeated' as const),
          name: fc.constantFrom(...names),
          values: fc.tuple(fc.string({ maxLength: 8 }), fc.string({ maxLength: 8 })),
        }),
      );
    }
    if (Object.keys(options.ids).some((name) => route.path(options.ids).includes(options.ids[name]))) {
      defects.push(
        fc.record({ kind: fc.constant('foreign_id' as const), id: fc.oneof(fc.constant(options.foreignId), fc.uuid()) }),
      );
    }
    for (const defect of fc.sample(fc.oneof(...defects), { seed: options.seed + index, numRuns: options.runs })) {
      let path = route.path(options.ids);
      const query = new URLSearchParams();
      if (defect.kind === 'foreign_id')
        path = route.path(Object.fromEntries(Object.keys(options.ids).map((name) => [name, defect.id])));
      else if (defect.kind === 'repeated') defect.values.forEach((value) => query.append(defect.name, value));
      else query.append(defect.name, defect.value);
      const search = query.toString();
      const response: request.Response = await t.http
        .get(search ? `${path}?${search}` : path)
        .set('Authorization', options.auth)
        .then((r) => r);
      const refusedWell = isContractRefusal(response.status, response.body, response.headers['request-id']);
      const ok = defect.kind === 'tolerated_value' || defect.kind === 'repeated' ? response.status < 500 : refusedWell;
      if (!ok) unexpected.push(`${route.name} ${JSON.stringify(defect)} → ${response.status} ${response.text.slice(0, 200)}`);
    }
  }
  expect(unexpected.slice(0, 20)).toEqual([]);
}

import { DomainError } from '@app/shared-kernel';
import fc from 'fast-check';
import {
  filterName,
  jsonScalar,
  parsePlanListQuery,
  PLAN_STATUSES,
  PlanFilter,
  PlanListCriteria,
  planListFingerprint,
  planListOrder,
  planListQueryParameters,
  RANGE_OPS,
  RawQuery,
  TIMESTAMP_FIELDS,
} from './plan-filters';

/** What fastify's query parser hands a route: one string per name, an array for a repeated one. */
function rawQuery(parameters: Array<[string, string]>): RawQuery {
  const query: Record<string, string | string[]> = Object.create(null);
  for (const [name, value] of parameters) {
    const earlier = query[name];
    query[name] = earlier === undefined ? value : [...[earlier].flat(), value];
  }
  return query;
}

function refusal(query: RawQuery): { code: string; param?: string } {
  try {
    parsePlanListQuery(query);
  } catch (error) {
    if (error instanceof DomainError) return { code: error.code, param: error.param };
    throw error;
  }
  throw new Error(`accepted: ${JSON.stringify(query)}`);
}

const criteriaOf = (query: RawQuery) => parsePlanListQuery(query).criteria;

describe('plan list query grammar (model §6)', () => {
  it('reads a bare field as eq, and a bare comma list as in for name and external_id only', () => {
    expect(criteriaOf({ name: 'Growth' }).filters).toEqual([{ field: 'name', op: 'eq', value: 'Growth' }]);
    expect(criteriaOf({ name: 'b,a,b' }).filters).toEqual([{ field: 'name', op: 'in', values: ['a', 'b'] }]);
    expect(criteriaOf({ 'name.eq': 'Growth, EU' }).filters).toEqual([{ field: 'name', op: 'eq', value: 'Growth, EU' }]);
    expect(criteriaOf({ external_id: 'x-1,x-2' }).filters).toEqual([{ field: 'external_id', op: 'in', values: ['x-1', 'x-2'] }]);
    expect(criteriaOf({ 'custom_fields.region': 'eu,us' }).filters).toEqual([
      { field: 'custom_fields', key: 'region', op: 'eq', value: '"eu,us"' },
    ]);
    expect(criteriaOf({ 'name.contains': '50%_off' }).filters).toEqual([{ field: 'name', op: 'contains', value: '50%_off' }]);
  });

  it('types custom field values: numbers and booleans when they parse so, else strings', () => {
    expect(jsonScalar('1e-1001')).toBe('"1e-1001"');
    expect(jsonScalar(`0.${'1'.repeat(200)}`)).toBe(`"0.${'1'.repeat(200)}"`);
    expect(['2', '-1.5', '1e3', 'true', 'false', '02', 'True', '1e999', 'null', ''].map(jsonScalar)).toEqual([
      '2',
      '-1.5',
      '1e3',
      'true',
      'false',
      '"02"',
      '"True"',
      '"1e999"',
      '"null"',
      '""',
    ]);
    expect(criteriaOf({ 'custom_fields.tier.in': '2,gold,true' }).filters).toEqual([
      { field: 'custom_fields', key: 'tier', op: 'in', values: ['"gold"', '2', 'true'] },
    ]);
  });

  it('reads custom_fields[<key>] (a deepObject, as Swagger UI and generated clients send it) as custom_fields.<key>', () => {
    expect(criteriaOf({ 'custom_fields[region]': 'eu' }).filters).toEqual(criteriaOf({ 'custom_fields.region': 'eu' }).filters);
    expect(criteriaOf({ 'custom_fields[tier.in]': '2,gold' }).filters).toEqual([
      { field: 'custom_fields', key: 'tier', op: 'in', values: ['"gold"', '2'] },
    ]);
    expect(() => criteriaOf({ 'custom_fields[region]': 'eu', 'custom_fields.region': 'us' })).toThrow(/repeats the filter/);
  });

  it('normalizes timestamps to the UTC instant with microseconds', () => {
    const [filter] = criteriaOf({ 'created_at.gte': '2026-01-01T01:30:00.1234567+01:30' }).filters;
    expect(filter).toEqual({ field: 'created_at', op: 'gte', value: '2026-01-01T00:00:00.123456Z' });
    expect(criteriaOf({ updated_at: '2024-02-29T23:59:59z' }).filters).toEqual([
      { field: 'updated_at', op: 'eq', value: '2024-02-29T23:59:59.000000Z' },
    ]);
  });

  it('refuses what the grammar does not know with INVALID_FILTER naming the parameter', () => {
    const cases: Array<[RawQuery, string]> = [
      [{ colour: 'red' }, 'colour'],
      [{ offset: '10' }, 'offset'],
      [{ 'name.starts_with': 'G' }, 'name.starts_with'],
      [{ 'external_id.contains': 'x' }, 'external_id.contains'],
      [{ 'version.in': '1,2' }, 'version.in'],
      [{ 'created_at.gt.x': '2026-01-01T00:00:00Z' }, 'created_at.gt.x'],
      [{ 'name.': 'x' }, 'name.'],
      [{ 'status.in': 'draft' }, 'status.in'],
      [{ created_at: '2026-01-01' }, 'created_at'],
      [{ 'created_at.lt': '2026-02-30T00:00:00Z' }, 'created_at.lt'],
      [{ 'published_at.gt': '2026-01-01T24:00:00Z' }, 'published_at.gt'],
      [{ 'updated_at.lte': '2026-01-01T00:00:00+24:00' }, 'updated_at.lte'],
      [{ 'updated_at.lte': '0001-01-01T00:00:00+01:00' }, 'updated_at.lte'],
      [{ version: '0' }, 'version'],
      [{ 'version.gt': '2147483648' }, 'version.gt'],
      [{ 'version.lt': '1.5' }, 'version.lt'],
      [{ name: '' }, 'name'],
      [{ external_id: 'a,,b' }, 'external_id'],
      [{ 'external_id.in': Array.from({ length: 101 }, (_, i) => `x${i}`).join(',') }, 'external_id.in'],
      [{ 'custom_fields.bad key': 'x' }, 'custom_fields.bad key'],
      [{ custom_fields: 'x' }, 'custom_fields'],
      [{ 'custom_fields[]': 'x' }, 'custom_fields[]'],
      [{ 'custom_fields[bad key]': 'x' }, 'custom_fields[bad key]'],
      [{ [`custom_fields.${'k'.repeat(65)}`]: 'x' }, `custom_fields.${'k'.repeat(65)}`],
      [{ 'custom_fields.region.contains': 'e' }, 'custom_fields.region.contains'],
      [{ status: 'live' }, 'status'],
      [{ status: 'draft,' }, 'status'],
      [{ has_scheduled_version: 'yes' }, 'has_scheduled_version'],
      [{ search: '   ' }, 'search'],
      [{ search: 'x'.repeat(201) }, 'search'],
      [{ tag: '' }, 'tag'],
      [{ name: ['a', 'b'] }, 'name'],
      [{ status: ['draft', 'active'] }, 'status'],
      [{ name: 'nul\u0000' }, 'name'],
    ];
    for (const [query, param] of cases)
      expect({ query, refusal: refusal(query) }).toEqual({ query, refusal: { code: 'INVALID_FILTER', param } });
  });

  it('refuses a filter given twice under two spellings (bare and .eq; bare comma list and .in)', () => {
    expect(refusal({ name: 'a', 'name.eq': 'b' })).toEqual({ code: 'INVALID_FILTER', param: 'name.eq' });
    expect(refusal({ external_id: 'a,b', 'external_id.in': 'c' })).toEqual({ code: 'INVALID_FILTER', param: 'external_id.in' });
    expect(refusal({ 'custom_fields.tier': '1', 'custom_fields.tier.eq': '2' })).toEqual({
      code: 'INVALID_FILTER',
      param: 'custom_fields.tier.eq',
    });
    // Different operators on one field make a range.
    expect(criteriaOf({ 'version.gte': '2', 'version.lt': '5' }).filters.map(filterName)).toEqual(['version.gte', 'version.lt']);
  });

  it('refuses an unknown sort (version included) with INVALID_SORT, and an unknown countable with VALIDATION_ERROR', () => {
    for (const sort of ['version', 'name:up', 'created_at:DESC', '', 'name,status', '-name']) {
      expect(refusal({ sort })).toEqual({ code: 'INVALID_SORT', param: 'sort' });
    }
    expect(refusal({ sort: ['name', 'status'] })).toEqual({ code: 'INVALID_SORT', param: 'sort' });
    for (const counts of ['tags', '', 'status,version'])
      expect(refusal({ counts })).toEqual({ code: 'VALIDATION_ERROR', param: 'counts' });
    expect(refusal({ cursor: ['a', 'b'] })).toEqual({ code: 'INVALID_CURSOR', param: 'cursor' });
  });

  it('reads sort with its default direction (created_at newest first, the others ascending)', () => {
    expect(criteriaOf({ sort: 'created_at' }).sort).toEqual({ key: 'created_at', direction: 'desc' });
    expect(criteriaOf({ sort: 'name' }).sort).toEqual({ key: 'name', direction: 'asc' });
    expect(criteriaOf({ sort: 'description:desc' }).sort).toEqual({ key: 'description', direction: 'desc' });
    expect(planListOrder(criteriaOf({ search: 'x' }))).toBe('relevance');
    expect(planListOrder(criteriaOf({ search: 'x', sort: 'created_at' }))).toBe('created_at:desc');
    expect(planListOrder(criteriaOf({}))).toBe('created_at:desc');
  });

  it('takes tag repeated, search trimmed, status as a sorted set; limit and cursor pass through', () => {
    const request = parsePlanListQuery({
      tag: ['eu', 'smb', 'eu'],
      search: '  Gro ',
      status: 'archived,draft,draft',
      limit: '7',
      cursor: 'v1.x.y',
    });
    expect(request).toEqual({
      criteria: expect.objectContaining({ tags: ['eu', 'smb'], search: 'Gro', statuses: ['draft', 'archived'] }),
      limit: '7',
      cursor: 'v1.x.y',
    });
  });

  it('binds cursors to what is asked, not to how it is spelled', () => {
    const fingerprint = (query: RawQuery) => planListFingerprint(criteriaOf(query));
    expect(fingerprint({ name: 'b,a', 'created_at.gt': '2026-01-01T01:00:00+01:00', limit: '5' })).toEqual(
      fingerprint({ 'name.in': 'a,b', 'created_at.gt': '2026-01-01T00:00:00Z', counts: 'status' }),
    );
    expect(fingerprint({ name: 'a' })).not.toEqual(fingerprint({ 'name.contains': 'a' }));
    expect(fingerprint({ 'custom_fields.tier': '2' })).not.toEqual(fingerprint({ 'custom_fields.tier': '"2"' }));
  });
});

/** Generated valid criteria: what the parser must return for the parameters that spell them. */
const text = fc.string({
  unit: fc.constantFrom('a', 'B', 'z', '0', '7', ' ', '%', '_', '-', '.', ',', 'é', 'ß', '/', '\\'),
  minLength: 1,
  maxLength: 12,
});
const listValue = text.filter((value) => !value.includes(','));
const instant = fc
  .tuple(
    fc.date({ min: new Date('0001-01-02T00:00:00Z'), max: new Date('9999-12-30T00:00:00Z'), noInvalidDate: true }),
    fc.integer({ min: 0, max: 999 }),
  )
  .map(([date, micros]) => `${date.toISOString().slice(0, 23)}${String(micros).padStart(3, '0')}Z`);
const sortedSet = <T>(values: T[]) => [...new Set(values)].sort();
const scalar = fc.oneof(
  listValue.filter((value) => jsonScalar(value).startsWith('"')).map((value) => JSON.stringify(value)),
  fc.integer().map(String),
  fc.constantFrom('true', 'false', '-0.5', '1e3'),
);
const customKey = fc.stringMatching(/^[A-Za-z0-9_-]{1,64}$/);

const filterArbitrary: fc.Arbitrary<PlanFilter> = fc.oneof(
  fc.record({ field: fc.constantFrom(...TIMESTAMP_FIELDS), op: fc.constantFrom(...RANGE_OPS), value: instant }),
  fc.record({
    field: fc.constant('version' as const),
    op: fc.constantFrom(...RANGE_OPS),
    value: fc.integer({ min: 1, max: 2_147_483_647 }),
  }),
  fc.record({ field: fc.constantFrom('name' as const, 'external_id' as const), op: fc.constant('eq' as const), value: text }),
  fc.record({
    field: fc.constantFrom('name' as const, 'external_id' as const),
    op: fc.constant('in' as const),
    values: fc.array(listValue, { minLength: 1, maxLength: 100 }).map(sortedSet),
  }),
  fc.record({ field: fc.constant('name' as const), op: fc.constant('contains' as const), value: text }),
  fc.record({ field: fc.constant('custom_fields' as const), key: customKey, op: fc.constant('eq' as const), value: scalar }),
  fc.record({
    field: fc.constant('custom_fields' as const),
    key: customKey,
    op: fc.constant('in' as const),
    values: fc.array(scalar, { minLength: 1, maxLength: 100 }).map(sortedSet),
  }),
);

const criteriaArbitrary: fc.Arbitrary<PlanListCriteria> = fc.record({
  filters: fc
    .uniqueArray(filterArbitrary, { maxLength: 6, selector: filterName })
    .map((filters) => [...filters].sort((a, b) => (filterName(a) < filterName(b) ? -1 : 1))),
  statuses: fc.option(fc.subarray([...PLAN_STATUSES], { minLength: 1 }), { nil: null }),
  tags: fc.array(text, { maxLength: 4 }).map(sortedSet),
  hasScheduledVersion: fc.option(fc.boolean(), { nil: null }),
  search: fc.option(
    text.map((value) => value.trim()).filter((value) => value.length > 0),
    { nil: null },
  ),
  sort: fc.option(
    fc.record({
      key: fc.constantFrom('created_at' as const, 'name' as const, 'status' as const, 'description' as const),
      direction: fc.constantFrom('asc' as const, 'desc' as const),
    }),
    { nil: null },
  ),
  counts: fc.constantFrom([], ['status' as const]),
});

describe('plan list query grammar: properties (fast-check)', () => {
  it('parses the parameters that spell any valid criteria back to those criteria (round trip)', () => {
    fc.assert(
      fc.property(criteriaArbitrary, (criteria) => {
        expect(parsePlanListQuery(rawQuery(planListQueryParameters(criteria))).criteria).toEqual(criteria);
      }),
      { numRuns: 500 },
    );
  });

  const junkName = fc.oneof(
    fc
      .stringMatching(/^[a-z_.]{1,20}$/)
      .filter((name) => !/^(limit|cursor|tag|sort|counts|search|status|has_scheduled_version)$/.test(name)),
    fc
      .tuple(fc.constantFrom(...TIMESTAMP_FIELDS, 'version', 'name', 'external_id'), fc.stringMatching(/^[a-z]{1,8}$/))
      .map(([field, op]) => `${field}.${op}`),
    fc.string({ maxLength: 70 }).map((key) => `custom_fields.${key}`),
  );
  const junkValue = fc.oneof(
    fc.string({ maxLength: 30 }),
    fc.constantFrom('', '2026-13-01T00:00:00Z', '0', '-1', 'yes', ',', 'a,,b', '\u0000'),
  );

  it('answers junk added to a valid query with INVALID_FILTER naming the junk, or accepts it as a filter — never anything else', () => {
    fc.assert(
      fc.property(criteriaArbitrary, junkName, junkValue, (criteria, name, value) => {
        const parameters = planListQueryParameters(criteria).filter(([existing]) => existing !== name);
        const query = rawQuery([...parameters, [name, value]]);
        let outcome: string;
        try {
          parsePlanListQuery(query);
          outcome = 'accepted';
        } catch (error) {
          if (!(error instanceof DomainError)) throw error;
          outcome = `${error.code} ${error.param}`;
        }
        if (outcome !== 'accepted') {
          // A junk name spelling an existing filter under another name repeats it; the refusal then names either.
          expect(outcome).toMatch(/^INVALID_FILTER /);
          if (!outcome.endsWith(` ${name}`))
            expect(parameters.map(([existing]) => `INVALID_FILTER ${existing}`)).toContain(outcome);
        } else {
          // Accepted junk is a real filter of the grammar: a known field with a known operator and a valid value.
          expect(name).toMatch(/^(created_at|updated_at|published_at|version|name|external_id|custom_fields)(\.|$)/);
        }
      }),
      { numRuns: 2000 },
    );
  });

  it('never throws anything but a DomainError of the list’s codes, whatever the query', () => {
    const anyValue = fc.oneof(
      fc.string({ maxLength: 40 }),
      fc.array(fc.string({ maxLength: 10 }), { minLength: 2, maxLength: 3 }),
    );
    const anyName = fc.oneof(
      fc.string({ maxLength: 30 }),
      fc.constantFrom(
        'limit',
        'cursor',
        'tag',
        'sort',
        'counts',
        'search',
        'status',
        'has_scheduled_version',
        'name',
        'name.in',
        'version',
        'custom_fields.x',
      ),
    );
    fc.assert(
      fc.property(fc.dictionary(anyName, anyValue, { maxKeys: 6 }), (query) => {
        try {
          parsePlanListQuery(query);
        } catch (error) {
          expect(error).toBeInstanceOf(DomainError);
          expect(['INVALID_FILTER', 'INVALID_SORT', 'INVALID_CURSOR', 'VALIDATION_ERROR']).toContain((error as DomainError).code);
          expect((error as DomainError).param).toEqual(expect.any(String));
        }
      }),
      { numRuns: 2000 },
    );
  });
});

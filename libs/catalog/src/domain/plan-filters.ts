import { DomainError, SharedErrors } from '@app/shared-kernel';
import { CatalogErrors } from './catalog-errors';

/**
 * The query grammar of the plan list (catalog model §6), as a pure parser: the raw query string
 * object (one string per parameter, an array where a parameter was repeated) in, normalized
 * criteria out, or a DomainError naming the offending parameter. Normalized means that two
 * queries asking the same thing yield equal criteria (and equal cursor fingerprints): filters in
 * parameter order, lists sorted and deduplicated, timestamps as UTC with microseconds.
 *
 * Filters are `field[.op]=value`; a bare `field=value` is eq, except that for `name` and
 * `external_id` a bare comma list is `in`; an explicit `.eq` never splits the value.
 */

export const RANGE_OPS = ['eq', 'gt', 'gte', 'lt', 'lte'] as const;
export type RangeOp = (typeof RANGE_OPS)[number];
export const TIMESTAMP_FIELDS = ['created_at', 'updated_at', 'published_at'] as const;
export type TimestampField = (typeof TIMESTAMP_FIELDS)[number];
export const PLAN_STATUSES = ['draft', 'scheduled', 'active', 'archived'] as const;
export type PlanStatus = (typeof PLAN_STATUSES)[number];
export const PLAN_SORT_KEYS = ['created_at', 'name', 'status', 'description'] as const;
export type PlanSortKey = (typeof PLAN_SORT_KEYS)[number];
export type SortDirection = 'asc' | 'desc';
export const PLAN_COUNTABLE = ['status'] as const;
export type PlanCountable = (typeof PLAN_COUNTABLE)[number];

/** At most this many values in one `in` list. */
export const MAX_IN_VALUES = 100;
export const MAX_TAGS = 100;
export const MAX_SEARCH_LENGTH = 200;
/** The largest `version` PostgreSQL's integer holds. */
const MAX_VERSION = 2_147_483_647;
const CUSTOM_FIELD_KEY = /^[A-Za-z0-9_-]{1,64}$/;

/** A custom field value as JSON text: a number or boolean when the value parses so, else a string. */
export type JsonScalarText = string;

export type PlanFilter =
  | { field: TimestampField; op: RangeOp; value: string }
  | { field: 'version'; op: RangeOp; value: number }
  | { field: 'external_id' | 'name'; op: 'eq'; value: string }
  | { field: 'external_id' | 'name'; op: 'in'; values: string[] }
  | { field: 'name'; op: 'contains'; value: string }
  | { field: 'custom_fields'; key: string; op: 'eq'; value: JsonScalarText }
  | { field: 'custom_fields'; key: string; op: 'in'; values: JsonScalarText[] };

export interface PlanSort {
  key: PlanSortKey;
  direction: SortDirection;
}

export interface PlanListCriteria {
  /** Ordered by their normalized parameter name (`field.op`), one per name. */
  filters: PlanFilter[];
  statuses: PlanStatus[] | null;
  /** Every tag must be on the plan. */
  tags: string[];
  hasScheduledVersion: boolean | null;
  /** Trimmed, 1–200 characters. */
  search: string | null;
  /** Null: the default order, newest first — ranked by relevance when searching. */
  sort: PlanSort | null;
  counts: PlanCountable[];
}

export interface PlanListRequest {
  criteria: PlanListCriteria;
  /** As sent: the limit is forgiving (clamped, or the default when invalid). */
  limit: unknown;
  cursor: string | undefined;
}

export const DEFAULT_PLAN_SORT: PlanSort = { key: 'created_at', direction: 'desc' };

export function invalidFilter(param: string, message: string): DomainError {
  return CatalogErrors.INVALID_FILTER.create(message, { param });
}

function invalidSort(message: string): DomainError {
  return SharedErrors.INVALID_SORT.create(message, { param: 'sort' });
}

/** The raw query: fastify gives a string per parameter and an array for a repeated one. */
export type RawQuery = Record<string, unknown>;

export function parsePlanListQuery(query: RawQuery): PlanListRequest {
  const criteria: PlanListCriteria = {
    filters: [],
    statuses: null,
    tags: [],
    hasScheduledVersion: null,
    search: null,
    sort: null,
    counts: [],
  };
  const filters = new Map<string, { param: string; filter: PlanFilter }>();
  let limit: unknown;
  let cursor: string | undefined;
  for (const param of Object.keys(query).sort()) {
    const raw = query[param];
    if (raw === undefined) continue;
    switch (param) {
      case 'limit':
        limit = raw;
        continue;
      case 'cursor':
        if (typeof raw !== 'string') {
          throw SharedErrors.INVALID_CURSOR.create('Send one cursor: the pagination.cursor of the previous page.', {
            param: 'cursor',
          });
        }
        cursor = raw;
        continue;
      case 'tag':
        criteria.tags = parseTags(raw);
        continue;
      case 'sort':
        criteria.sort = parseSort(raw);
        continue;
      case 'counts':
        criteria.counts = parseCounts(raw);
        continue;
    }
    const value = single(param, raw);
    switch (param) {
      case 'search':
        criteria.search = parseSearch(value);
        continue;
      case 'status':
        criteria.statuses = parseStatuses(value);
        continue;
      case 'has_scheduled_version':
        if (value !== 'true' && value !== 'false') throw invalidFilter(param, 'has_scheduled_version must be true or false.');
        criteria.hasScheduledVersion = value === 'true';
        continue;
    }
    const filter = parseFilter(param, value);
    const name = filterName(filter);
    const earlier = filters.get(name);
    if (earlier) {
      throw invalidFilter(
        param,
        `${param} repeats the filter ${earlier.param}: send each filter once (a comma list in one in filter).`,
      );
    }
    filters.set(name, { param, filter });
  }
  criteria.filters = [...filters.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, entry]) => entry.filter);
  return { criteria, limit, cursor };
}

/** The normalized parameter name of a filter: `name.in`, `custom_fields.region.eq`. */
export function filterName(filter: PlanFilter): string {
  return filter.field === 'custom_fields' ? `custom_fields.${filter.key}.${filter.op}` : `${filter.field}.${filter.op}`;
}

function single(param: string, raw: unknown): string {
  if (Array.isArray(raw)) throw invalidFilter(param, `${param} is repeated: send each filter once.`);
  if (typeof raw !== 'string') throw invalidFilter(param, `${param} must be a single value.`);
  if (raw.includes('\u0000')) throw invalidFilter(param, `${param} must not contain a NUL character.`);
  return raw;
}

/** `custom_fields[region]` (OpenAPI's deepObject, as Swagger UI and generated clients send it) is `custom_fields.region`. */
const CUSTOM_FIELD_BRACKETS = /^custom_fields\[([^\]]*)\]$/;

function parseFilter(param: string, value: string): PlanFilter {
  const bracketed = CUSTOM_FIELD_BRACKETS.exec(param);
  if (bracketed) return parseCustomField(param, bracketed[1].split('.'), value);
  const [field, ...rest] = param.split('.');
  if (field === 'custom_fields') return parseCustomField(param, rest, value);
  if (rest.length > 1) throw invalidFilter(param, `Unknown filter: ${param}.`);
  const op = rest[0];
  if (op === '') throw invalidFilter(param, `Unknown filter operator in ${param}.`);
  switch (field) {
    case 'created_at':
    case 'updated_at':
    case 'published_at':
      return { field, op: rangeOp(param, op), value: parseTimestamp(param, value) };
    case 'version':
      return { field, op: rangeOp(param, op), value: parseVersion(param, value) };
    case 'external_id':
    case 'name': {
      if (op === undefined) {
        return value.includes(',')
          ? { field, op: 'in', values: inList(param, value) }
          : { field, op: 'eq', value: nonEmpty(param, value) };
      }
      if (op === 'eq') return { field, op, value: nonEmpty(param, value) };
      if (op === 'in') return { field, op, values: inList(param, value) };
      if (op === 'contains' && field === 'name') return { field, op, value: nonEmpty(param, value) };
      throw invalidFilter(
        param,
        `Unknown operator ${op} for ${field}: use ${field === 'name' ? 'eq, in or contains' : 'eq or in'}.`,
      );
    }
    default:
      throw invalidFilter(param, `Unknown parameter or filter: ${param}.`);
  }
}

function parseCustomField(param: string, rest: string[], value: string): PlanFilter {
  const [key, op, ...extra] = rest;
  if (key === undefined || !CUSTOM_FIELD_KEY.test(key)) {
    throw invalidFilter(
      param,
      'A custom field filter is custom_fields.<key>[.eq|.in] with a key of 1–64 letters, digits, _ or -.',
    );
  }
  if (extra.length > 0 || (op !== undefined && op !== 'eq' && op !== 'in')) {
    throw invalidFilter(param, `Unknown operator in ${param}: custom fields take eq or in.`);
  }
  if (op === 'in') return { field: 'custom_fields', key, op, values: [...new Set(inList(param, value).map(jsonScalar))].sort() };
  return { field: 'custom_fields', key, op: 'eq', value: jsonScalar(nonEmpty(param, value)) };
}

function rangeOp(param: string, op: string | undefined): RangeOp {
  if (op === undefined) return 'eq';
  if ((RANGE_OPS as readonly string[]).includes(op)) return op as RangeOp;
  throw invalidFilter(param, `Unknown operator ${op} in ${param}: use eq, gt, gte, lt or lte.`);
}

function nonEmpty(param: string, value: string): string {
  if (value === '') throw invalidFilter(param, `${param} needs a value.`);
  return value;
}

function inList(param: string, value: string): string[] {
  const values = value.split(',');
  if (values.some((item) => item === ''))
    throw invalidFilter(param, `${param} holds an empty value: separate values with single commas.`);
  const unique = [...new Set(values)].sort();
  if (unique.length > MAX_IN_VALUES) throw invalidFilter(param, `${param} holds more than ${MAX_IN_VALUES} values.`);
  return unique;
}

const JSON_NUMBER = /^-?(0|[1-9]\d*)(\.\d+)?(?:[eE]([+-]?\d+))?$/;
/** Beyond these a literal is not read as a number (PostgreSQL's numeric would refuse some of them). */
const MAX_NUMBER_LENGTH = 100;
const MAX_EXPONENT = 1000;

/**
 * The typed JSON value of a custom field filter: a boolean or a number when it parses so (a JSON
 * number of at most 100 characters, exponent within ±1000, finite), else the string.
 */
export function jsonScalar(value: string): JsonScalarText {
  if (value === 'true' || value === 'false') return value;
  const number = value.length <= MAX_NUMBER_LENGTH ? JSON_NUMBER.exec(value) : null;
  if (number && Math.abs(Number(number[3] ?? 0)) <= MAX_EXPONENT && Number.isFinite(Number(value))) return value;
  return JSON.stringify(value);
}

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(?:([Zz])|([+-])(\d{2}):(\d{2}))$/;

/**
 * An RFC 3339 date-time, checked field by field (no 30 February, no hour 24, an offset within
 * ±23:59), as the UTC instant with microseconds PostgreSQL stores (finer digits are dropped).
 */
export function parseTimestamp(param: string, value: string): string {
  const match = RFC3339.exec(value);
  const refuse = () => invalidFilter(param, `${param} must be an RFC 3339 timestamp such as 2026-01-01T00:00:00Z.`);
  if (!match) throw refuse();
  const [, y, mo, d, h, mi, s, fraction = '', zulu, sign, oh, om] = match;
  const [year, month, day, hour, minute, second] = [y, mo, d, h, mi, s].map(Number);
  const offset = zulu ? 0 : (sign === '-' ? -1 : 1) * (Number(oh) * 60 + Number(om));
  if (year < 1 || month < 1 || month > 12 || day < 1 || day > daysIn(year, month) || hour > 23 || minute > 59 || second > 59)
    throw refuse();
  if (!zulu && (Number(oh) > 23 || Number(om) > 59)) throw refuse();
  const micros = fraction.padEnd(6, '0').slice(0, 6);
  const instant = new Date(0);
  instant.setUTCFullYear(year, month - 1, day);
  instant.setUTCHours(hour, minute - offset, second, Number(micros.slice(0, 3)));
  const utcYear = instant.getUTCFullYear();
  if (utcYear < 1 || utcYear > 9999) throw refuse();
  const pad = (n: number, width = 2) => String(n).padStart(width, '0');
  return (
    `${pad(utcYear, 4)}-${pad(instant.getUTCMonth() + 1)}-${pad(instant.getUTCDate())}T` +
    `${pad(instant.getUTCHours())}:${pad(instant.getUTCMinutes())}:${pad(instant.getUTCSeconds())}.${micros}Z`
  );
}

function daysIn(year: number, month: number): number {
  if (month === 2) return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

function parseVersion(param: string, value: string): number {
  const version = /^[1-9]\d{0,9}$/.test(value) ? Number(value) : NaN;
  if (!(version <= MAX_VERSION)) throw invalidFilter(param, `${param} must be an integer from 1 to ${MAX_VERSION}.`);
  return version;
}

function parseSearch(value: string): string {
  const search = value.trim();
  if (search.length < 1 || search.length > MAX_SEARCH_LENGTH) {
    throw invalidFilter('search', `search must be 1 to ${MAX_SEARCH_LENGTH} characters (after trimming).`);
  }
  return search;
}

function parseStatuses(value: string): PlanStatus[] {
  const statuses = value.split(',');
  const unknown = statuses.find((status) => !(PLAN_STATUSES as readonly string[]).includes(status));
  if (unknown !== undefined) {
    throw invalidFilter('status', `Unknown status "${unknown}": status is a comma list of ${PLAN_STATUSES.join(', ')}.`);
  }
  return PLAN_STATUSES.filter((status) => statuses.includes(status));
}

function parseTags(raw: unknown): string[] {
  const tags = Array.isArray(raw) ? raw : [raw];
  for (const tag of tags) {
    if (typeof tag !== 'string' || tag === '' || tag.includes('\u0000'))
      throw invalidFilter('tag', 'Each tag needs a value (repeat tag=… for several).');
  }
  const unique = [...new Set(tags as string[])].sort();
  if (unique.length > MAX_TAGS) throw invalidFilter('tag', `At most ${MAX_TAGS} tags.`);
  return unique;
}

function parseSort(raw: unknown): PlanSort {
  const match = typeof raw === 'string' ? /^(created_at|name|status|description)(?::(asc|desc))?$/.exec(raw) : null;
  if (!match) {
    throw invalidSort(`sort takes one of ${PLAN_SORT_KEYS.join(', ')}, optionally with :asc or :desc (version is not sortable).`);
  }
  return {
    key: match[1] as PlanSortKey,
    direction: (match[2] as SortDirection | undefined) ?? (match[1] === 'created_at' ? 'desc' : 'asc'),
  };
}

function parseCounts(raw: unknown): PlanCountable[] {
  const values = typeof raw === 'string' ? raw.split(',') : [];
  const unknown =
    values.length === 0 ? String(raw) : values.find((value) => !(PLAN_COUNTABLE as readonly string[]).includes(value));
  if (unknown !== undefined) {
    const message = `counts takes a comma list of countable fields: ${PLAN_COUNTABLE.join(', ')}.`;
    throw SharedErrors.VALIDATION_ERROR.create(message, {
      param: 'counts',
      errors: [{ param: 'counts', code: 'INVALID_VALUE', message }],
    });
  }
  return [...new Set(values as PlanCountable[])].sort();
}

/** What a cursor is bound to: the normalized filters, search and order (not the page size, nor counts). */
export function planListFingerprint(criteria: PlanListCriteria): Record<string, unknown> {
  return {
    filters: criteria.filters.map((filter) => [filterName(filter), 'values' in filter ? filter.values : filter.value]),
    status: criteria.statuses,
    tags: criteria.tags,
    has_scheduled_version: criteria.hasScheduledVersion,
    search: criteria.search,
  };
}

/** The order a list is in: `name:asc`, or `relevance` for a search without sort. */
export function planListOrder(criteria: PlanListCriteria): string {
  if (criteria.sort === null && criteria.search !== null) return 'relevance';
  const sort = criteria.sort ?? DEFAULT_PLAN_SORT;
  return `${sort.key}:${sort.direction}`;
}

/**
 * The query string parameters that ask for these criteria (the parser's inverse): each filter
 * spelled with its explicit operator, custom field values as their JSON text would be typed.
 */
export function planListQueryParameters(criteria: PlanListCriteria): Array<[string, string]> {
  const parameters: Array<[string, string]> = criteria.filters.map((filter) => {
    const value = 'values' in filter ? filter.values : [filter.value];
    const text = value.map((item) => (filter.field === 'custom_fields' ? scalarQueryText(String(item)) : String(item))).join(',');
    return [filterName(filter), text];
  });
  if (criteria.statuses !== null) parameters.push(['status', criteria.statuses.join(',')]);
  for (const tag of criteria.tags) parameters.push(['tag', tag]);
  if (criteria.hasScheduledVersion !== null) parameters.push(['has_scheduled_version', String(criteria.hasScheduledVersion)]);
  if (criteria.search !== null) parameters.push(['search', criteria.search]);
  if (criteria.sort !== null) parameters.push(['sort', `${criteria.sort.key}:${criteria.sort.direction}`]);
  if (criteria.counts.length > 0) parameters.push(['counts', criteria.counts.join(',')]);
  return parameters;
}

function scalarQueryText(json: JsonScalarText): string {
  const value: unknown = JSON.parse(json);
  return typeof value === 'string' ? value : json;
}

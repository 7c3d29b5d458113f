import { Actor, DomainError, SharedErrors } from '@app/shared-kernel';
import { DEFAULT_PLAN_SORT, PlanFilter, PlanListCriteria, PlanStatus } from '../../domain/plan-filters';
import { planColumns, PlanRow } from './plan-views';

/** The position a cursor carries: the last row's sort values, then its id. */
type Position = unknown[];

/** A page row: the plan's columns and the values of its position in the order asked for. */
export type PageRow = PlanRow & {
  _k_created_at: string;
  _k_lower_name: string;
  _k_description: string | null;
  status_order: number;
  _grp: number;
  _rank: number;
};

/** Numbered query parameters: `add` returns the placeholder of the value it keeps. */
export class Parameters {
  readonly values: unknown[];
  constructor(...values: unknown[]) {
    this.values = values;
  }
  add(value: unknown): string {
    this.values.push(value);
    return `$${this.values.length}`;
  }
}

const COMPARE = { eq: '=', gt: '>', gte: '>=', lt: '<', lte: '<=' } as const;

/** The bound an operator puts on a later time's creation time, if any. */
const UPPER_BOUND_OF: Partial<Record<keyof typeof COMPARE, string>> = { eq: '<=', lt: '<', lte: '<=' };

const STATUS_ORDER: Record<PlanStatus, number> = { draft: 0, scheduled: 1, active: 2, archived: 3 };

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

const CREATED_KEY = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;

/** created_at to the microsecond (a JavaScript Date keeps milliseconds): a cursor names its row exactly. */
const CREATED_AT_KEY = `to_char(p.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;

/** The description sort's key, as its index holds it: the first 500 characters, in byte order. */
const DESCRIPTION_KEY = `left(p.description, 500) COLLATE "C"`;

/** `%`, `_` and the escape character itself match literally. */
function likeSubstring(value: string): string {
  return `%${value.replace(/[\\%_]/g, (character) => `\\${character}`)}%`;
}

function filterSql(filter: PlanFilter, params: Parameters): string {
  switch (filter.field) {
    case 'created_at':
      return `p.created_at ${COMPARE[filter.op]} ${params.add(filter.value)}::timestamptz`;
    case 'updated_at':
    case 'published_at': {
      const value = params.add(filter.value);
      const condition = `p.${filter.field} ${COMPARE[filter.op]} ${value}::timestamptz`;
      // A plan is updated and published at or after its creation (a CHECK constraint), so an upper
      // bound here bounds created_at too: the newest-first walk then starts at the bound (P5).
      const createdBound = UPPER_BOUND_OF[filter.op];
      return createdBound ? `${condition} AND p.created_at ${createdBound} ${value}::timestamptz` : condition;
    }
    case 'version':
      return `p.version ${COMPARE[filter.op]} ${params.add(filter.value)}::int`;
    case 'name':
    case 'external_id':
      if (filter.op === 'in') return `p.${filter.field} = ANY(${params.add(filter.values)}::text[])`;
      if (filter.op === 'contains') return `lower(p.name) LIKE lower(${params.add(likeSubstring(filter.value))})`;
      return `p.${filter.field} = ${params.add(filter.value)}`;
    case 'custom_fields': {
      const document = (value: string) => `{${JSON.stringify(filter.key)}:${value}}`;
      if (filter.op === 'eq') return `p.custom_fields @> ${params.add(document(filter.value))}::jsonb`;
      // One containment per value: each is served by the GIN index (a BitmapOr), which `@> ANY(…)` is not.
      return `(${filter.values.map((value) => `p.custom_fields @> ${params.add(document(value))}::jsonb`).join(' OR ')})`;
    }
  }
}

/** conditions() adds the organization first: its parameter. */
const TENANT_PARAMETER = '$1';

/** Every condition of the criteria (tenant first), optionally without the status filter (counts are facets). */
export function conditions(actor: Actor, criteria: PlanListCriteria, params: Parameters, options: { status: boolean }): string[] {
  const where = [
    `p.organization_id = ${params.add(actor.organizationId)}`,
    `p.workspace_id = ${params.add(actor.workspaceId)}`,
    'p.deleted_at IS NULL',
  ];
  where.push(...criteria.filters.map((filter) => filterSql(filter, params)));
  if (options.status && criteria.statuses !== null) {
    where.push(`p.status_order = ANY(${params.add(criteria.statuses.map((status) => STATUS_ORDER[status]))}::smallint[])`);
  }
  if (criteria.tags.length > 0) where.push(`p.tags @> ${params.add(criteria.tags)}::text[]`);
  if (criteria.hasScheduledVersion !== null) where.push(`p.next_release_at IS ${criteria.hasScheduledVersion ? 'NOT ' : ''}NULL`);
  if (criteria.search !== null) {
    const pattern = params.add(likeSubstring(criteria.search));
    where.push(`(lower(p.name) LIKE lower(${pattern}) OR lower(p.external_id) LIKE lower(${pattern}))`);
  }
  return where;
}

function invalidCursor(): DomainError {
  return SharedErrors.INVALID_CURSOR.create('The cursor is invalid or was issued for another list, filter set or order.', {
    param: 'cursor',
  });
}

/** A position decoded from a signed cursor, checked against the shape its order writes. */
function checked(position: Position, shape: Array<(value: unknown) => boolean>): Position {
  if (position.length !== shape.length || !shape.every((accepts, index) => accepts(position[index]))) throw invalidCursor();
  return position;
}

const isId = (value: unknown) => typeof value === 'string' && UUID.test(value);

const isCreated = (value: unknown) => typeof value === 'string' && CREATED_KEY.test(value);

const isText = (value: unknown) => typeof value === 'string';

const isIn =
  (...values: unknown[]) =>
  (value: unknown) =>
    values.includes(value);

/** The substrings the criteria look for: the search and every name.contains. */
function substrings(criteria: PlanListCriteria): string[] {
  const contains = criteria.filters.flatMap((filter) =>
    filter.field === 'name' && filter.op === 'contains' ? [filter.value] : [],
  );
  return criteria.search === null ? contains : [criteria.search, ...contains];
}

/**
 * Whether a page is taken from the materialized matches of its filters rather than from an index
 * walk in its order. A substring of 3 characters or more is found through the trigram indexes at
 * the cost of its matches; the planner cannot tell how rare a substring is, and walking the sort's
 * index for a rare one reads the whole table (EXPLAIN at 1,000,000 plans: 110 ms for 200 matches,
 * against 1 ms). Shorter ones have no trigram to look up: their walk stops as soon as the page is full.
 */
function materializesMatches(criteria: PlanListCriteria): boolean {
  return substrings(criteria).some((substring) => [...substring].length >= 3);
}

/**
 * The SQL of one page in the order asked for, every order served by an index that matches it so
 * that a deep page costs what the first does (P5), except relevance, which ranks every match.
 */
function pageSql(
  criteria: PlanListCriteria,
  where: string[],
  params: Parameters,
  after: Position | undefined,
  rows: number,
): string {
  const limit = params.add(rows);
  const columns = `p.*, ${CREATED_AT_KEY} AS _k_created_at, lower(p.name) AS _k_lower_name, left(p.description, 500) AS _k_description`;
  const materialized = materializesMatches(criteria);
  const from = (extra: string[]) => {
    const conditions = [...(materialized ? [] : where), ...extra];
    return `FROM ${materialized ? 'matches' : 'plans'} p${conditions.length > 0 ? ` WHERE ${conditions.join(' AND ')}` : ''}`;
  };
  const statement = (sql: string) =>
    materialized ? `WITH matches AS MATERIALIZED (SELECT p.* FROM plans p WHERE ${where.join(' AND ')}) ${sql}` : sql;
  const wrap = (
    inner: string,
    order: string,
  ) => `SELECT ${planColumns(TENANT_PARAMETER)}, p._k_created_at, p._k_lower_name, p._k_description, p.status_order, p._grp, p._rank
      FROM (${inner}) p ORDER BY ${order}`;

  if (criteria.sort === null && criteria.search !== null) {
    // Relevance: exact match (name or external_id) 0, prefix 1, substring 2; ties newest first.
    const exact = params.add(criteria.search);
    const prefix = params.add(`${likeSubstring(criteria.search).slice(1)}`);
    const rank = `CASE WHEN lower(p.name) = lower(${exact}) OR lower(p.external_id) = lower(${exact}) THEN 0
                       WHEN lower(p.name) LIKE lower(${prefix}) OR lower(p.external_id) LIKE lower(${prefix}) THEN 1 ELSE 2 END`;
    let keyset = '';
    if (after) {
      const [r, c, id] = checked(after, [isIn(0, 1, 2), isCreated, isId]);
      const [rp, cp, ip] = [params.add(r), params.add(c), params.add(id)];
      keyset = `WHERE p._rank > ${rp}::int OR (p._rank = ${rp}::int AND (p.created_at, p.id) < (${cp}::timestamptz, ${ip}::uuid))`;
    }
    const order = 'p._rank, p.created_at DESC, p.id DESC';
    return statement(
      wrap(
        `SELECT * FROM (SELECT ${columns}, 0 AS _grp, ${rank} AS _rank ${from([])}) p ${keyset} ORDER BY ${order} LIMIT ${limit}`,
        order,
      ),
    );
  }

  const { key, direction } = criteria.sort ?? DEFAULT_PLAN_SORT;
  const dir = direction === 'asc' ? 'ASC' : 'DESC';
  const cmp = direction === 'asc' ? '>' : '<';
  const ranked = `${columns}, 0 AS _grp, 0 AS _rank`;
  switch (key) {
    case 'created_at': {
      const order = `p.created_at ${dir}, p.id ${dir}`;
      const [c, id] = after ? checked(after, [isCreated, isId]) : [];
      const keyset = after ? [`(p.created_at, p.id) ${cmp} (${params.add(c)}::timestamptz, ${params.add(id)}::uuid)`] : [];
      return statement(wrap(`SELECT ${ranked} ${from(keyset)} ORDER BY ${order} LIMIT ${limit}`, order));
    }
    case 'name': {
      const order = `lower(p.name) COLLATE "C" ${dir}, p.name COLLATE "C" ${dir}, p.id ${dir}`;
      const [l, n, id] = after ? checked(after, [isText, isText, isId]) : [];
      const keyset = after
        ? [
            `(lower(p.name) COLLATE "C", p.name COLLATE "C", p.id) ${cmp} (${params.add(l)}::text, ${params.add(n)}::text, ${params.add(id)}::uuid)`,
          ]
        : [];
      return statement(wrap(`SELECT ${ranked} ${from(keyset)} ORDER BY ${order} LIMIT ${limit}`, order));
    }
    case 'status': {
      const order = `p.status_order ${dir}, p.id ${dir}`;
      const [s, id] = after ? checked(after, [isIn(0, 1, 2, 3), isId]) : [];
      const keyset = after ? [`(p.status_order, p.id) ${cmp} (${params.add(s)}::smallint, ${params.add(id)}::uuid)`] : [];
      return statement(wrap(`SELECT ${ranked} ${from(keyset)} ORDER BY ${order} LIMIT ${limit}`, order));
    }
    case 'description': {
      // Plans without a description come last both ways: the described ones by their first 500 characters (what the index
      // holds), then the others, each an index range.
      const [group, d, id] = after ? checked(after, [isIn(0, 1), (value) => value === null || isText(value), isId]) : [];
      if (after && (group === 0) !== isText(d)) throw invalidCursor();
      const described =
        group === 1
          ? []
          : [
              `(SELECT ${columns}, 0 AS _grp, 0 AS _rank ${from([
                'p.description IS NOT NULL',
                ...(after ? [`(${DESCRIPTION_KEY}, p.id) ${cmp} (${params.add(d)}::text, ${params.add(id)}::uuid)`] : []),
              ])} ORDER BY ${DESCRIPTION_KEY} ${dir}, p.id ${dir} LIMIT ${limit})`,
            ];
      const undescribed = `(SELECT ${columns}, 1 AS _grp, 0 AS _rank ${from([
        'p.description IS NULL',
        ...(group === 1 ? [`p.id ${cmp} ${params.add(id)}::uuid`] : []),
      ])} ORDER BY p.id ${dir} LIMIT ${limit})`;
      const order = `p._grp, ${DESCRIPTION_KEY} ${dir}, p.id ${dir}`;
      return statement(`${wrap([...described, undescribed].join(' UNION ALL '), order)} LIMIT ${limit}`);
    }
  }
}

/** The one statement of a page (also what the benchmark EXPLAINs): `rows` rows after `after`, in the criteria's order. */
export function planListStatement(
  actor: Actor,
  criteria: PlanListCriteria,
  after: Position | undefined,
  rows: number,
): { sql: string; values: unknown[] } {
  const params = new Parameters();
  const where = conditions(actor, criteria, params, { status: true });
  return { sql: pageSql(criteria, where, params, after, rows), values: params.values };
}

/** The position of a row in the criteria's order, as its cursor carries it. */
export function positionOf(criteria: PlanListCriteria, row: PageRow): Position {
  if (criteria.sort === null && criteria.search !== null) return [Number(row._rank), row._k_created_at, row.id];
  switch ((criteria.sort ?? DEFAULT_PLAN_SORT).key) {
    case 'created_at':
      return [row._k_created_at, row.id];
    case 'name':
      return [row._k_lower_name, row.name, row.id];
    case 'status':
      return [Number(row.status_order), row.id];
    case 'description':
      return [Number(row._grp), row._k_description, row.id];
  }
}

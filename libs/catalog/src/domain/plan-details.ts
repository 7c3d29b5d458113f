/**
 * A plan's display fields that every version freezes, under the one name they have in the API,
 * in the `plans` and `plan_versions` columns and in the read rows. Tags are live only (on `plans`,
 * never frozen), so they are not among them.
 */
export interface PlanDetailFields {
  name: string;
  description: string | null;
  public_description: string | null;
  external_id: string | null;
  metadata: Record<string, unknown>;
  custom_fields: Record<string, unknown>;
  translations: Record<string, unknown>;
}

type Camel<S extends string> = S extends `${infer Head}_${infer Tail}` ? `${Head}${Capitalize<Camel<Tail>>}` : S;

/** Live fields: they change in place and never create a version (a version keeps them as they were at freeze). */
export type PlanDetails = { [K in keyof PlanDetailFields as Camel<K>]: PlanDetailFields[K] } & { tags: string[] };

/** The frozen fields in column order; the type below fails to compile when one of PlanDetailFields is missing. */
export const PLAN_DETAIL_FIELDS = [
  'name',
  'description',
  'public_description',
  'external_id',
  'metadata',
  'custom_fields',
  'translations',
] as const satisfies readonly (keyof PlanDetailFields)[];
type Missing = Exclude<keyof PlanDetailFields, (typeof PLAN_DETAIL_FIELDS)[number]>;
const everyField: [Missing] extends [never] ? true : Missing = true;
void everyField;

/** The fields stored as jsonb (written as JSON text). */
const JSON_FIELDS: ReadonlySet<keyof PlanDetailFields> = new Set(['metadata', 'custom_fields', 'translations']);

const camel = (field: string) => field.replace(/_([a-z])/g, (_, letter: string) => letter.toUpperCase());

/** The frozen fields of a row (a plan or a plan version), in column order: what a view spreads. */
export function planDetailFields(row: PlanDetailFields): PlanDetailFields {
  return Object.fromEntries(PLAN_DETAIL_FIELDS.map((field) => [field, row[field]])) as unknown as PlanDetailFields;
}

/** A row's frozen fields as the aggregate's details (`tags` from the row when it has them: only plans do). */
export function planDetailsOf(row: PlanDetailFields & { tags?: string[] }): PlanDetails {
  return {
    ...Object.fromEntries(PLAN_DETAIL_FIELDS.map((field) => [camel(field), row[field]])),
    tags: row.tags ?? [],
  } as PlanDetails;
}

/** The frozen fields' columns, `alias.`-qualified when given, in the order of `planDetailValues`. */
export function planDetailColumns(alias = ''): string[] {
  return PLAN_DETAIL_FIELDS.map((field) => (alias ? `${alias}.${field}` : field));
}

/** The details' frozen fields as SQL parameters, in column order. */
export function planDetailValues(details: PlanDetails): unknown[] {
  return PLAN_DETAIL_FIELDS.map((field) => {
    const value = (details as Record<string, unknown>)[camel(field)];
    return JSON_FIELDS.has(field) ? JSON.stringify(value) : value;
  });
}

import { DataSource } from 'typeorm';

export const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;
export type Method = (typeof METHODS)[number];

/** One operation of the live OpenAPI document. */
export interface DocumentedOperation {
  method: Method;
  /** As documented: `/v1/api_keys/{id}/rotate`. */
  path: string;
  label: string;
  secured: boolean;
  /** Names of the path and query parameters. */
  pathParams: string[];
  queryParams: string[];
  /** The JSON request body schema, references resolved at the top level (undefined without a body). */
  bodySchema?: any;
}

export function resolveSchema(document: any, schema: any): any {
  const ref: string | undefined = schema?.$ref ?? schema?.allOf?.find((part: any) => part.$ref)?.$ref;
  return ref ? resolveSchema(document, document.components.schemas[ref.split('/').pop()!]) : schema;
}

/** Every operation of the document (health included: callers filter). */
export function documentedOperations(document: any): DocumentedOperation[] {
  return Object.entries(document.paths as Record<string, Record<string, any>>).flatMap(([path, item]) =>
    METHODS.filter((method) => item[method]).map((method) => {
      const operation = item[method];
      const parameters: any[] = [...(item.parameters ?? []), ...(operation.parameters ?? [])];
      const body = operation.requestBody?.content?.['application/json']?.schema;
      return {
        method,
        path,
        label: `${method.toUpperCase()} ${path}`,
        secured: (operation.security ?? document.security ?? []).some((requirement: object) => 'bearer' in requirement),
        // From the template itself: an operation may leave a path parameter undeclared.
        pathParams: [...path.matchAll(/\{(\w+)\}/g)].map((match) => match[1]),
        queryParams: parameters.filter((parameter) => parameter.in === 'query').map((parameter) => parameter.name),
        bodySchema: body ? resolveSchema(document, body) : undefined,
      };
    }),
  );
}

/**
 * The dotted names of every `…_id`/`…_ids` property a JSON request body may carry, nested objects
 * and array items followed (`pins[].product_id`).
 */
export function bodyIdFields(document: any, schema: any, prefix = '', seen = new Set<string>()): string[] {
  const ref: string | undefined = schema?.$ref ?? schema?.allOf?.find((part: any) => part.$ref)?.$ref;
  if (ref) {
    if (seen.has(ref)) return [];
    return bodyIdFields(document, document.components.schemas[ref.split('/').pop()!], prefix, new Set([...seen, ref]));
  }
  return Object.entries<any>(schema?.properties ?? {}).flatMap(([name, property]) => {
    const path = `${prefix}${name}`;
    const found = name.endsWith('_id') || name.endsWith('_ids') ? [path] : [];
    const items = property.type === 'array' && property.items ? bodyIdFields(document, property.items, `${path}[].`, seen) : [];
    const inner =
      property.$ref || property.allOf || property.properties ? bodyIdFields(document, property, `${path}.`, seen) : [];
    return [...found, ...items, ...inner];
  });
}

/** A deep copy of `body` with the dotted field (`a.b`, `list[].c`: the first item) set to `value`. */
export function withField(body: object, field: string, value: unknown): Record<string, any> {
  const copy = structuredClone(body) as Record<string, any>;
  const parts = field.split('.');
  let node: any = copy;
  parts.forEach((part, index) => {
    const last = index === parts.length - 1;
    if (part.endsWith('[]')) {
      const name = part.slice(0, -2);
      if (!Array.isArray(node[name]) || node[name].length === 0) node[name] = [{}];
      node = node[name][0];
    } else if (last) {
      node[part] = value;
    } else {
      node[part] ??= {};
      node = node[part];
    }
  });
  return copy;
}

/**
 * One digest per table of the public schema (rows as JSON, ordered, minus the ignored columns);
 * tables listed in `skip` are left out. Equal digests: unchanged tables.
 */
export async function databaseDigest(
  db: DataSource,
  options: { skip?: string[]; ignoredColumns?: string[] } = {},
): Promise<Record<string, string>> {
  const tables: Array<{ table_name: string }> = await db.query(
    `SELECT table_name FROM information_schema.tables
      WHERE table_schema = 'public' AND table_type = 'BASE TABLE' AND table_name <> ALL($1::text[]) ORDER BY table_name`,
    [options.skip ?? []],
  );
  const digests: Record<string, string> = {};
  const ignored = options.ignoredColumns ?? [];
  for (const { table_name: table } of tables) {
    const [{ digest }] = await db.query(
      `SELECT md5(coalesce(string_agg((to_jsonb(x) - $1::text[])::text, '|' ORDER BY (to_jsonb(x) - $1::text[])::text), '')) AS digest
         FROM "${table}" x`,
      [ignored],
    );
    digests[table] = digest;
  }
  return digests;
}

import { randomUUID } from 'node:crypto';

/**
 * The route table as the live OpenAPI document states it, for every suite that walks every route
 * (route table, tenancy, key lifecycle, bad input): a route added later is walked without editing them.
 */
export const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;
export type Method = (typeof METHODS)[number];

/** One operation of the live OpenAPI document. */
export interface DocumentedOperation {
  method: Method;
  /** As documented: `/v1/api_keys/{id}/rotate`. */
  path: string;
  label: string;
  secured: boolean;
  /** The scope named in the documented 403; undefined for routes that need authentication only. */
  scope?: string;
  /** How the Idempotency-Key header is declared: required, optional, or not at all. */
  idempotency: 'required' | 'optional' | 'none';
  /** A POST whose Idempotency-Key is optional: a pure computation (evaluate, preview) that reads. */
  pure: boolean;
  /** Names of the path parameters, from the template itself (an operation may leave one undeclared). */
  pathParams: string[];
  /** The declared query parameters. */
  query: any[];
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
      const forbidden: string = operation.responses?.['403']?.description ?? '';
      const key = parameters.find((parameter) => parameter.in === 'header' && parameter.name === 'Idempotency-Key');
      const idempotency = key ? (key.required ? 'required' : 'optional') : 'none';
      return {
        method,
        path,
        label: `${method.toUpperCase()} ${path}`,
        secured: (operation.security ?? document.security ?? []).some((requirement: object) => 'bearer' in requirement),
        scope: /requires ([a-z_]+:(?:read|write))/.exec(forbidden)?.[1],
        idempotency,
        pure: method === 'post' && idempotency === 'optional',
        pathParams: [...path.matchAll(/\{(\w+)\}/g)].map((match) => match[1]),
        query: parameters.filter((parameter) => parameter.in === 'query'),
        bodySchema: body ? resolveSchema(document, body) : undefined,
      };
    }),
  );
}

/** The names of an operation's query parameters. */
export function queryNames(operation: DocumentedOperation): string[] {
  return operation.query.map((parameter) => parameter.name as string);
}

/** Query parameters a route requires, so that a live id is refused for what it is (404), not for the query. */
export const REQUIRED_QUERIES: Record<string, string> = {
  '/v1/plans/{id}/versions/{version}/referrers': '?type=subscription',
};

/** The documented path with its parameters filled from `ids` (a fresh UUID for the others) and its required query. */
export function concretePath(path: string, ids: Record<string, string> = {}): string {
  return path.replace(/\{(\w+)\}/g, (_match, name: string) => ids[name] ?? randomUUID()) + (REQUIRED_QUERIES[path] ?? '');
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

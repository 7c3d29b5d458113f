import { randomUUID } from 'node:crypto';

/**
 * The route table as the live OpenAPI document states it, for suites that walk every route
 * (route table, key lifecycle): a route added later is walked without editing them.
 */
export const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;
export type Method = (typeof METHODS)[number];

export interface Operation {
  method: Method;
  /** As documented: `/v1/api_keys/{id}/rotate`. */
  path: string;
  secured: boolean;
  /** The scope named in the documented 403; undefined for routes that need authentication only. */
  scope?: string;
  /** A POST whose Idempotency-Key is optional: a pure computation (evaluate, preview) that reads. */
  pure: boolean;
  label: string;
}

/** Every operation of an OpenAPI document (`GET /openapi.json`). */
export function documentedOperations(document: any): Operation[] {
  return Object.entries(document.paths as Record<string, Record<string, any>>).flatMap(([path, item]) =>
    METHODS.filter((method) => item[method]).map((method) => {
      const operation = item[method];
      const secured = (operation.security ?? document.security ?? []).some((requirement: object) => 'bearer' in requirement);
      const forbidden: string = operation.responses?.['403']?.description ?? '';
      const scope = /requires ([a-z_]+:(?:read|write))/.exec(forbidden)?.[1];
      const idempotencyKey = (operation.parameters ?? []).find((parameter: any) => parameter.name === 'Idempotency-Key');
      const pure = method === 'post' && idempotencyKey !== undefined && !idempotencyKey.required;
      return { method, path, secured, scope, pure, label: `${method.toUpperCase()} ${path}` };
    }),
  );
}

/** Query parameters a route requires, so that a live id is refused for what it is (404), not for the query. */
export const REQUIRED_QUERIES: Record<string, string> = {
  '/v1/plans/{id}/versions/{version}/referrers': '?type=subscription',
};

/** The documented path with its parameters filled from `ids` (a fresh UUID for the others) and its required query. */
export function concretePath(path: string, ids: Record<string, string> = {}): string {
  return path.replace(/\{(\w+)\}/g, (_match, name: string) => ids[name] ?? randomUUID()) + (REQUIRED_QUERIES[path] ?? '');
}

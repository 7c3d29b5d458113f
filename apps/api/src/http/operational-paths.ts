/** Served without the /v1 prefix and outside rate limits. */
const OPERATIONAL_PATHS = ['/health', '/docs', '/openapi.json', '/openapi.yaml'];

export function isOperational(path: string): boolean {
  return OPERATIONAL_PATHS.some((prefix) => path === prefix || path.startsWith(`${prefix}/`) || path.startsWith(`${prefix}?`));
}

const UUIDS = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;

/**
 * One path spelled the other ways the router reads alike: its UUIDs in upper case, a digit of
 * each UUID percent-encoded, and without the /v1 prefix. An Idempotency-Key names one request
 * whichever spelling carries it (a retry through another spelling once made a second transfer).
 */
export function pathSpellings(path: string): Array<{ spelling: string; path: string }> {
  return [
    { spelling: 'upper-case ids', path: path.replace(UUIDS, (id) => id.toUpperCase()) },
    { spelling: 'percent-encoded digit', path: path.replace(UUIDS, (id) => id.replace(/\d/, (digit) => `%3${digit}`)) },
    { spelling: 'no /v1 prefix', path: path.replace(/^\/v1\//, '/') },
  ].filter((candidate) => candidate.path !== path);
}

import { canonicalJson, isUuid, KeyedRequest } from '@app/shared-kernel';
import { FastifyRequest } from 'fastify';

/**
 * What an Idempotency-Key was sent for, spelled canonically, so that one request spelled two
 * ways is one request and two requests are never one:
 * - the route as registered (`/v1/wallets/:id/transfer`): the unprefixed alias is rewritten to
 *   it before routing, and percent-encoding is gone once the router has matched it;
 * - the path parameters as the router decoded them, UUIDs lower-cased (PostgreSQL reads any
 *   case, so `…/WALLET-ID/transfer` names the same wallet);
 * - the query as parsed and the body as canonical JSON (key order does not matter).
 * The fingerprint is `fingerprint` (the store's keyed HMAC: a body may carry a password) of
 * all of it, method included.
 */
export function keyedRequest(request: FastifyRequest, fingerprint: (canonical: string) => string): KeyedRequest {
  const route = request.routeOptions.url ?? request.url.split('?')[0];
  const params = Object.fromEntries(
    Object.entries((request.params as Record<string, string> | undefined) ?? {}).map(([name, value]) => [
      name,
      isUuid(value) ? value.toLowerCase() : value,
    ]),
  );
  return {
    method: request.method,
    route,
    fingerprint: fingerprint(
      canonicalJson({ method: request.method, route, params, query: request.query ?? {}, body: request.body ?? null }),
    ),
  };
}

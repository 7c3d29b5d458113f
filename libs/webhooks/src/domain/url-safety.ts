import ipaddr from 'ipaddr.js';
import { DomainError, SharedErrors } from '@app/shared-kernel';
import { WebhookErrors } from './webhook-errors';

/**
 * Where webhooks may go (api-contract.md §4, URLs). In production: https only, and only public
 * unicast addresses — loopback, private, link-local (cloud metadata: 169.254.169.254), unique-local
 * (fd00:ec2::254), carrier-grade NAT (100.100.100.200), unspecified, multicast, reserved and the
 * IPv6 forms that embed an IPv4 address are all refused. In development and test, http and loopback
 * are allowed too, so that a local receiver works; the other ranges stay refused.
 */
export interface UrlPolicy {
  production: boolean;
}

export const WEBHOOK_URL_MAX_LENGTH = 2048;

export function urlNotAllowed(message: string): DomainError {
  return WebhookErrors.WEBHOOK_URL_NOT_ALLOWED.create(message, { param: 'url' });
}

/** The URL checked on its own (no resolution): scheme, no credentials, a host, length. */
export function parseWebhookUrl(value: unknown, policy: UrlPolicy): URL {
  if (typeof value !== 'string' || value.length === 0 || value.length > WEBHOOK_URL_MAX_LENGTH) {
    throw SharedErrors.VALIDATION_ERROR.create(`url must be a URL of 1 to ${WEBHOOK_URL_MAX_LENGTH} characters.`, {
      param: 'url',
      errors: [{ param: 'url', code: 'INVALID_FORMAT', message: 'url must be an absolute http(s) URL.' }],
    });
  }
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw SharedErrors.VALIDATION_ERROR.create('url must be an absolute http(s) URL.', {
      param: 'url',
      errors: [{ param: 'url', code: 'INVALID_FORMAT', message: 'url must be an absolute http(s) URL.' }],
    });
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw urlNotAllowed('url must use https.');
  if (policy.production && url.protocol !== 'https:') throw urlNotAllowed('url must use https.');
  if (url.username !== '' || url.password !== '') throw urlNotAllowed('url must not carry a user name or password.');
  if (url.hostname === '') throw urlNotAllowed('url must name a host.');
  return url;
}

/** The host as a resolver takes it: IPv6 literals lose their brackets. */
export function hostOf(url: URL): string {
  return url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
}

/** Why an address may not receive webhooks, or null when it may. */
export function refusedAddressReason(address: string, policy: UrlPolicy): string | null {
  if (!ipaddr.isValid(address)) return `${address} is not an IP address`;
  let parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) {
    parsed = (parsed as ipaddr.IPv6).toIPv4Address();
  }
  const range = parsed.range();
  if (range === 'unicast') return null;
  if (range === 'loopback' && !policy.production) return null;
  return `${address} is a ${range} address`;
}

/** Throws WEBHOOK_URL_NOT_ALLOWED unless every address the host resolved to may receive webhooks. */
export function assertAddressesAllowed(host: string, addresses: readonly string[], policy: UrlPolicy): void {
  if (addresses.length === 0) throw urlNotAllowed(`${host} does not resolve to any address.`);
  for (const address of addresses) {
    const reason = refusedAddressReason(address, policy);
    if (reason !== null)
      throw urlNotAllowed(`The url's host ${host} resolves to ${address}, which may not receive webhooks (${reason}).`);
  }
}

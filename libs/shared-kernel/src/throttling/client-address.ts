import ipaddr from 'ipaddr.js';

/**
 * The bucket a client address counts in. An IPv6 client is handed a whole /64 (and picks any
 * address in it at will), so the /64 is one caller; an IPv4-mapped address is its IPv4 address.
 */
export function clientAddressKey(ip: string): string {
  if (!ipaddr.isValid(ip)) return `address:${ip}`;
  const address = ipaddr.process(ip);
  if (address.kind() === 'ipv4') return `address:${address.toString()}`;
  const prefix = ipaddr.IPv6.networkAddressFromCIDR(`${address.toNormalizedString()}/64`);
  return `address:${prefix.toString()}/64`;
}

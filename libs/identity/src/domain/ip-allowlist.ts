import ipaddr from 'ipaddr.js';
import { invalidParameter } from '@app/shared-kernel';

type Range = [ipaddr.IPv4 | ipaddr.IPv6, number];

/** An API key's allowed_ips: addresses and CIDR blocks, IPv4 and IPv6; empty allows all. */
export class IpAllowlist {
  private constructor(
    readonly entries: readonly string[],
    private readonly ranges: readonly Range[],
  ) {}

  static parse(values: readonly unknown[], param = 'allowed_ips'): IpAllowlist {
    const entries: string[] = [];
    const ranges: Range[] = [];
    values.forEach((value, index) => {
      const range = typeof value === 'string' ? parseRange(value.trim()) : undefined;
      if (!range) {
        throw invalidParameter(
          `${param}[${index}]`,
          'INVALID_IP',
          `${JSON.stringify(value)} is not an IP address or CIDR block.`,
        );
      }
      ranges.push(range);
      entries.push(`${range[0].toString()}${isWholeAddress(range) ? '' : `/${range[1]}`}`);
    });
    return new IpAllowlist(entries, ranges);
  }

  get unrestricted(): boolean {
    return this.ranges.length === 0;
  }

  /** Every address this list allows, `outer` allows too (an unrestricted list is within an unrestricted one only). */
  isWithin(outer: IpAllowlist): boolean {
    if (outer.unrestricted) return true;
    if (this.unrestricted) return false;
    return this.ranges.every(([address, bits]) =>
      outer.ranges.some(
        ([network, outerBits]) => address.kind() === network.kind() && bits >= outerBits && address.match(network, outerBits),
      ),
    );
  }

  /** The entries `outer` does not contain. */
  entriesOutside(outer: IpAllowlist): string[] {
    return this.entries.filter((_entry, index) => !new IpAllowlist([], [this.ranges[index]]).isWithin(outer));
  }

  allows(address: string): boolean {
    if (this.unrestricted) return true;
    if (!ipaddr.isValid(address)) return false;
    const parsed = ipaddr.process(address);
    return this.ranges.some(([network, bits]) => parsed.kind() === network.kind() && parsed.match(network, bits));
  }
}

/** Standard notations only: ipaddr.js also accepts forms like "10" or "0x7f.1" that nobody means. */
function isStandardAddress(text: string): boolean {
  return ipaddr.IPv4.isValidFourPartDecimal(text) || (text.includes(':') && ipaddr.IPv6.isValid(text));
}

function parseRange(text: string): Range | undefined {
  const [address, bits, ...rest] = text.split('/');
  if (rest.length > 0 || !isStandardAddress(address) || (bits !== undefined && !/^\d{1,3}$/.test(bits))) return undefined;
  const parsed = ipaddr.process(address);
  const width = parsed.kind() === 'ipv4' ? 32 : 128;
  const prefix = bits === undefined ? width : Number(bits) - (parsed.kind() === 'ipv4' && address.includes(':') ? 96 : 0);
  return prefix >= 0 && prefix <= width ? [parsed, prefix] : undefined;
}

function isWholeAddress([address, bits]: Range): boolean {
  return bits === (address.kind() === 'ipv4' ? 32 : 128);
}

import { DomainError } from '@app/shared-kernel';
import { IpAllowlist } from './ip-allowlist';

describe('IpAllowlist', () => {
  it('allows everything when empty', () => {
    expect(IpAllowlist.parse([]).allows('203.0.113.9')).toBe(true);
  });

  it('matches addresses and CIDR blocks of both families, IPv4-mapped IPv6 included', () => {
    const list = IpAllowlist.parse(['10.0.0.0/8', '203.0.113.7', '2001:db8::/32', '::ffff:192.0.2.0/120']);
    expect(list.entries).toEqual(['10.0.0.0/8', '203.0.113.7', '2001:db8::/32', '192.0.2.0/24']);
    expect(list.allows('192.0.2.44')).toBe(true);
    expect(list.allows('10.1.2.3')).toBe(true);
    expect(list.allows('::ffff:10.1.2.3')).toBe(true);
    expect(list.allows('203.0.113.7')).toBe(true);
    expect(list.allows('203.0.113.8')).toBe(false);
    expect(list.allows('2001:db8:1::1')).toBe(true);
    expect(list.allows('2001:db9::1')).toBe(false);
    expect(list.allows('not an ip')).toBe(false);
  });

  it.each(['10.0.0.0/33', '300.1.1.1', 'localhost', '10.0.0.0/', '::/129', '', 'a.b.c.d/8', '10', '0x7f000001', '10.0.0.1/8/8'])(
    'refuses %p with INVALID_IP',
    (value) => {
      expect(() => IpAllowlist.parse(['10.0.0.1', value])).toThrow(DomainError);
      try {
        IpAllowlist.parse(['10.0.0.1', value]);
      } catch (error) {
        expect((error as DomainError).errors).toEqual([expect.objectContaining({ param: 'allowed_ips[1]', code: 'INVALID_IP' })]);
      }
    },
  );
});

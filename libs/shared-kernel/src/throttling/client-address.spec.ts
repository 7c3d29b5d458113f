import { clientAddressKey } from './client-address';

describe('clientAddressKey', () => {
  it('keys an IPv4 client by its address, mapped or not', () => {
    expect(clientAddressKey('203.0.113.7')).toBe('address:203.0.113.7');
    expect(clientAddressKey('::ffff:203.0.113.7')).toBe('address:203.0.113.7');
  });

  it('keys an IPv6 client by its /64, however the address is spelled', () => {
    expect(clientAddressKey('2001:db8:1:2:aaaa::1')).toBe('address:2001:db8:1:2::/64');
    expect(clientAddressKey('2001:0DB8:0001:0002:ffff:ffff:ffff:ffff')).toBe('address:2001:db8:1:2::/64');
    expect(clientAddressKey('2001:db8:1:3::1')).not.toBe(clientAddressKey('2001:db8:1:2::1'));
  });
});

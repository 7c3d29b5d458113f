import { DomainError } from '@app/shared-kernel';
import { assertAddressesAllowed, parseWebhookUrl, refusedAddressReason } from './url-safety';

const production = { production: true };
const development = { production: false };

function codeOf(action: () => unknown): string | undefined {
  try {
    action();
    return undefined;
  } catch (error) {
    return (error as DomainError).code;
  }
}

describe('webhook URL safety', () => {
  it('refuses loopback, private, link-local, unique-local, metadata and other non-public addresses in production', () => {
    for (const address of [
      '127.0.0.1',
      '127.3.4.5',
      '::1',
      '10.0.0.1',
      '172.16.5.4',
      '192.168.1.1',
      '169.254.169.254',
      'fe80::1',
      'fd00:ec2::254',
      'fc00::1',
      '100.100.100.200',
      '0.0.0.0',
      '::',
      '::ffff:127.0.0.1',
      '::ffff:10.0.0.1',
      '64:ff9b::a00:1',
      '224.0.0.1',
      '255.255.255.255',
    ]) {
      expect({ address, refused: refusedAddressReason(address, production) !== null }).toEqual({ address, refused: true });
    }
    for (const address of ['93.184.215.14', '8.8.8.8', '2606:4700:4700::1111', '::ffff:8.8.8.8'])
      expect({ address, reason: refusedAddressReason(address, production) }).toEqual({ address, reason: null });
  });

  it('allows loopback in development, and nothing else that production refuses', () => {
    expect(refusedAddressReason('127.0.0.1', development)).toBeNull();
    expect(refusedAddressReason('::1', development)).toBeNull();
    for (const address of ['10.0.0.1', '169.254.169.254', 'fd00:ec2::254', '192.168.0.10'])
      expect({ address, refused: refusedAddressReason(address, development) !== null }).toEqual({ address, refused: true });
  });

  it('refuses a host when any of its addresses is refused, or when it resolves to none', () => {
    expect(codeOf(() => assertAddressesAllowed('mixed.example', ['8.8.8.8', '10.0.0.1'], production))).toBe(
      'WEBHOOK_URL_NOT_ALLOWED',
    );
    expect(codeOf(() => assertAddressesAllowed('gone.example', [], production))).toBe('WEBHOOK_URL_NOT_ALLOWED');
    expect(codeOf(() => assertAddressesAllowed('ok.example', ['8.8.8.8', '2606:4700:4700::1111'], production))).toBeUndefined();
  });

  it('takes https only in production, http too in development; never credentials; malformed is a validation error', () => {
    expect(codeOf(() => parseWebhookUrl('http://hooks.example.com/x', production))).toBe('WEBHOOK_URL_NOT_ALLOWED');
    expect(parseWebhookUrl('https://hooks.example.com/x', production).hostname).toBe('hooks.example.com');
    expect(parseWebhookUrl('http://127.0.0.1:8080/x', development).port).toBe('8080');
    expect(codeOf(() => parseWebhookUrl('ftp://hooks.example.com/x', development))).toBe('WEBHOOK_URL_NOT_ALLOWED');
    expect(codeOf(() => parseWebhookUrl('https://user:pw@hooks.example.com/x', production))).toBe('WEBHOOK_URL_NOT_ALLOWED');
    expect(codeOf(() => parseWebhookUrl('not a url', production))).toBe('VALIDATION_ERROR');
    expect(codeOf(() => parseWebhookUrl(42, production))).toBe('VALIDATION_ERROR');
    expect(codeOf(() => parseWebhookUrl(`https://a.example/${'x'.repeat(2100)}`, production))).toBe('VALIDATION_ERROR');
  });
});

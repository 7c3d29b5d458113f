import { createHmac } from 'node:crypto';
import { ManualClock } from '../clock';
import { DomainError } from '../domain-error';
import { derivedWebhookSecret, WebhookSignature } from './webhook-signature';

function refusal(action: () => void): string | undefined {
  try {
    action();
  } catch (error) {
    return `${(error as DomainError).kind} ${(error as DomainError).code}`;
  }
  return undefined;
}

describe('WebhookSignature', () => {
  const clock = new ManualClock(new Date('2026-11-25T10:00:00.000Z'));
  const secret = derivedWebhookSecret('test-app-secret-0123456789abcdef0123456789', 'webhooks:test');
  const signature = new WebhookSignature(secret, clock);
  const now = Math.floor(clock.now().getTime() / 1000);
  const body = '{ "id": "evt_1",  "type": "x" }';

  it('signs as Stripe does: t=<unix>,v1=HMAC-SHA256(<t>.<raw body>) in hex', () => {
    const expected = createHmac('sha256', secret).update(`${now}.${body}`).digest('hex');
    expect(signature.sign(body)).toBe(`t=${now},v1=${expected}`);
  });

  it('accepts its own signature anywhere inside the five-minute window, either way', () => {
    for (const offset of [0, -300, 300, -1, 1]) {
      expect(refusal(() => signature.verify(body, signature.sign(body, now + offset)))).toBeUndefined();
    }
  });

  it('refuses outside the window, another body, another secret, a malformed or missing header: 401 INVALID_SIGNATURE', () => {
    const other = new WebhookSignature(
      derivedWebhookSecret('test-app-secret-0123456789abcdef0123456789', 'webhooks:other'),
      clock,
    );
    const valid = signature.sign(body);
    const cases: Array<[string, string | undefined]> = [
      [body, signature.sign(body, now - 301)],
      [body, signature.sign(body, now + 301)],
      [`${body} `, valid],
      [body, other.sign(body)],
      [body, undefined],
      [body, ''],
      [body, valid.replace(/^t=\d+,/, '')],
      [body, valid.replace(/,v1=.*/, '')],
      [body, valid.replace(/v1=./, 'v1=0')],
      [body, valid.toUpperCase()],
      [body, valid.replace(/^t=\d+/, 't=abc')],
      [body, valid.replace(/^t=\d+/, 't=')],
      [body, `${valid.slice(0, -1)}`],
    ];
    for (const [sent, header] of cases) {
      expect({ header, refused: refusal(() => signature.verify(sent, header)) }).toEqual({
        header,
        refused: 'unauthenticated INVALID_SIGNATURE',
      });
    }
  });

  it('accepts one matching v1 among several (a provider rolling its secret signs with both)', () => {
    const other = new WebhookSignature(derivedWebhookSecret('another-secret-0123456789abcdef0123456789', 'webhooks:test'), clock);
    const rolled = `${other.sign(body)},v1=${signature.sign(body).split('v1=')[1]}`;
    expect(refusal(() => signature.verify(body, rolled))).toBeUndefined();
  });
});

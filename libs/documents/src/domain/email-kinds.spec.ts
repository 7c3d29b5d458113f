import { checkVariables, emailKind, EMAIL_KINDS, LOCALES, negotiateLocale, substitute } from './email-kinds';

describe('e-mail kinds', () => {
  it('names every kind and every variable in every shipped locale', () => {
    for (const kind of EMAIL_KINDS) {
      for (const locale of LOCALES) {
        expect(kind.name[locale]).toEqual(expect.any(String));
        for (const variable of kind.variables) expect(variable.description[locale]).toEqual(expect.any(String));
      }
    }
    expect(EMAIL_KINDS.map((kind) => kind.anchorKey)).toEqual(
      expect.arrayContaining([
        'invoice.finalized',
        'invoice.payment_failed',
        'credit_note.created',
        'quote.sent',
        'wallet.low_balance',
        'wallet.top_up_succeeded',
      ]),
    );
  });

  it.each([
    [undefined, 'en'],
    ['', 'en'],
    ['de', 'de'],
    ['de-AT', 'de'],
    ['fr-CA,fr;q=0.9,en;q=0.8', 'fr'],
    ['en;q=0.4, de;q=0.9', 'de'],
    ['ja, fr;q=0.1', 'fr'],
    ['ja, zh-CN', 'en'],
    ['de;q=0, fr', 'fr'],
    ['*', 'en'],
    [';;;,,q=', 'en'],
  ])('negotiates Accept-Language %p as %p', (header, locale) => {
    expect(negotiateLocale(header)).toBe(locale);
  });

  it('accepts only the variables the kind offers, with or without spaces, and refuses unbalanced braces', () => {
    const kind = emailKind('wallet.low_balance')!;
    expect(checkVariables('Balance {{wallet.balance}} / {{ wallet.threshold }}', kind, 'p')).toEqual([]);
    expect(checkVariables('{{ invoice.number }}', kind, 'p').map((error) => error.code)).toEqual(['UNKNOWN_VARIABLE']);
    expect(checkVariables('{{ customer.name }', kind, 'p').map((error) => error.code)).toEqual(['INVALID_SYNTAX']);
    expect(checkVariables('}} {{', kind, 'p').map((error) => error.code)).toEqual(['INVALID_SYNTAX']);
    expect(checkVariables('{{}}', kind, 'p').map((error) => error.code)).toEqual(['UNKNOWN_VARIABLE']);
  });

  it('substitutes values, escaped where the output is HTML', () => {
    const escape = (value: string) => value.replace(/&/g, '&amp;').replace(/</g, '&lt;');
    expect(substitute('Hi {{ customer.name }}!', { 'customer.name': 'A & <B>' })).toBe('Hi A & <B>!');
    expect(substitute('Hi {{customer.name}}!', { 'customer.name': 'A & <B>' }, escape)).toBe('Hi A &amp; &lt;B>!');
  });

  // Each of these took hours with the old pattern (`{{` + 3,000 spaces: 28 s, cubic growth), at the body's maximum length.
  const BODY_MAX = 20_000;
  it.each([
    ['{{ and white space', `{{${' '.repeat(BODY_MAX - 2)}`],
    ['{{ and a name-less run', `{{${' a'.repeat((BODY_MAX - 2) / 2)}`],
    ['nested braces', '{{ {{ '.repeat(BODY_MAX / 6)],
    ['{{ runs closed by one brace', `{{${' '.repeat(BODY_MAX / 2)}}`.padEnd(BODY_MAX, ' }')],
  ])(
    'checks and substitutes a worst case of %s in one pass',
    (_name, text) => {
      const kind = emailKind('wallet.low_balance')!;
      expect(text.length).toBeLessThanOrEqual(BODY_MAX);
      expect(checkVariables(text, kind, 'p').map((error) => error.code)).toEqual(['INVALID_SYNTAX']);
      expect(substitute(text, {})).toBe(text);
    },
    10_000,
  );
});

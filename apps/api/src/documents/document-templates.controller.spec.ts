import { matchesEtag } from '@app/documents';
import { negotiateFormat } from './document-templates.controller';

describe('preview content negotiation', () => {
  it.each([
    [undefined, 'pdf'],
    ['*/*', 'pdf'],
    ['application/pdf', 'pdf'],
    ['text/html', 'html'],
    ['text/plain', 'text'],
    ['text/html;q=0.5, text/plain', 'text'],
    ['image/png', 'pdf'],
    ['TEXT/HTML', 'html'],
    ['text/html;q=0, application/pdf', 'pdf'],
  ])('Accept %p renders %p', (accept, format) => {
    expect(negotiateFormat(accept)).toBe(format);
  });
});

describe('If-None-Match', () => {
  it('matches the tag, a list holding it, a weak form of it, or *', () => {
    expect(matchesEtag('"abc"', 'abc')).toBe(true);
    expect(matchesEtag('"x", "abc"', 'abc')).toBe(true);
    expect(matchesEtag('W/"abc"', 'abc')).toBe(true);
    expect(matchesEtag('*', 'abc')).toBe(true);
    expect(matchesEtag('"abcd"', 'abc')).toBe(false);
    expect(matchesEtag('abc', 'abc')).toBe(false);
  });
});

import { DEFAULT_PAGE_LIMIT, MAX_PAGE_LIMIT, parseLimit, toPage } from './pagination';

describe('parseLimit', () => {
  it.each([
    ['1', 1],
    ['20', 20],
    [20, 20],
    ['020', 20],
    ['200', 200],
    ['201', MAX_PAGE_LIMIT],
    ['99999999999999999999999', MAX_PAGE_LIMIT],
    [1e6, MAX_PAGE_LIMIT],
  ])('reads %p as %d', (raw, limit) => {
    expect(parseLimit(raw)).toBe(limit);
  });

  it.each([undefined, null, '', '0', 0, '-1', -5, '1.5', 1.5, 'abc', '10abc', ' 10', '+10', '1e2', NaN, Infinity, ['10'], {}])(
    'falls back to the default for %p',
    (raw) => {
      expect(parseLimit(raw)).toBe(DEFAULT_PAGE_LIMIT);
    },
  );

  it('uses the given default and maximum', () => {
    expect(parseLimit(undefined, { default: 10, max: 25 })).toBe(10);
    expect(parseLimit('30', { default: 10, max: 25 })).toBe(25);
  });
});

describe('toPage', () => {
  const cursorFor = (last: number) => `after-${last}`;

  it('has more, with a cursor after the last returned row, when the extra row came back', () => {
    expect(toPage([1, 2, 3, 4], 3, cursorFor)).toEqual({
      data: [1, 2, 3],
      pagination: { cursor: 'after-3', has_more: true },
    });
  });

  it('has no cursor when there is nothing more', () => {
    expect(toPage([1, 2, 3], 3, cursorFor)).toEqual({ data: [1, 2, 3], pagination: { cursor: null, has_more: false } });
    expect(toPage([], 3, cursorFor)).toEqual({ data: [], pagination: { cursor: null, has_more: false } });
  });
});

import { closestName } from './closest-name';

describe('closestName', () => {
  const known = ['limit', 'starting_after', 'ending_before', 'external_id', 'email'];

  it('finds a typo, another case or another separator', () => {
    expect(closestName('limt', known)).toBe('limit');
    expect(closestName('externalId', known)).toBe('external_id');
    expect(closestName('starting-after', known)).toBe('starting_after');
    expect(closestName('Email', known)).toBe('email');
  });

  it('guesses nothing far from every known name, or without known names', () => {
    expect(closestName('zzzzzz', known)).toBeUndefined();
    expect(closestName('currency', known)).toBeUndefined();
    expect(closestName('limit', [])).toBeUndefined();
  });
});

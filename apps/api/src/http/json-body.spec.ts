import { MAX_JSON_DEPTH, nestsDeeperThan } from './json-body';

const arrays = (depth: number): unknown => JSON.parse(`${'['.repeat(depth)}${']'.repeat(depth)}`);
const objects = (depth: number): unknown => JSON.parse(`${'{"a":'.repeat(depth - 1)}{}${'}'.repeat(depth - 1)}`);

describe('nestsDeeperThan', () => {
  it('counts the outermost array or object as level 1, scalars as no level', () => {
    expect(nestsDeeperThan('text', 0)).toBe(false);
    expect(nestsDeeperThan(null, 0)).toBe(false);
    expect(nestsDeeperThan({}, 1)).toBe(false);
    expect(nestsDeeperThan({}, 0)).toBe(true);
    expect(nestsDeeperThan({ a: [1, { b: 'x' }] }, 3)).toBe(false);
    expect(nestsDeeperThan({ a: [1, { b: [] }] }, 3)).toBe(true);
  });

  it('accepts exactly the limit of arrays or objects and refuses one more', () => {
    for (const nest of [arrays, objects]) {
      expect(nestsDeeperThan(nest(MAX_JSON_DEPTH), MAX_JSON_DEPTH)).toBe(false);
      expect(nestsDeeperThan(nest(MAX_JSON_DEPTH + 1), MAX_JSON_DEPTH)).toBe(true);
    }
  });

  it('finds a deep branch beside wide shallow ones, and measures any depth without recursion', () => {
    expect(nestsDeeperThan({ wide: Array.from({ length: 1000 }, () => ({})), deep: arrays(40) }, MAX_JSON_DEPTH)).toBe(true);
    expect(nestsDeeperThan(arrays(500_000), MAX_JSON_DEPTH)).toBe(true);
  });
});

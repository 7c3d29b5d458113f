import fc from 'fast-check';
import { dependencyOrder, findCycle, longestPath } from './dependency-graph';
import { materializeFormulas } from './formula-engine';
import { FormulaScope } from './formula-scope';
import { thrown } from './formula-test-support';

const graphOf =
  (edges: Record<string, string[]>) =>
  (id: string): readonly string[] =>
    edges[id] ?? [];

describe('dependency graph walks', () => {
  it('finds the first back edge as a closed path', () => {
    expect(findCycle(['a'], graphOf({ a: ['b'], b: ['c'], c: ['b'] }))).toEqual(['b', 'c', 'b']);
    expect(findCycle(['a'], graphOf({ a: ['a'] }))).toEqual(['a', 'a']);
    expect(findCycle(['a', 'x'], graphOf({ a: ['b'], x: ['y'], y: ['x'] }))).toEqual(['x', 'y', 'x']);
  });

  it('accepts diamonds and shared dependencies (a black node is not a cycle)', () => {
    expect(findCycle(['a'], graphOf({ a: ['b', 'c'], b: ['d'], c: ['d'], d: [] }))).toBeNull();
    expect(findCycle(['a', 'b'], graphOf({ a: ['b'], b: [] }))).toBeNull();
  });

  it('orders dependencies first, each node once, and finds the longest path', () => {
    const edges = graphOf({ a: ['b', 'c'], b: ['d'], c: ['d', 'e'], e: ['d'] });
    expect(dependencyOrder(['a'], edges)).toEqual(['d', 'b', 'e', 'c', 'a']);
    expect(longestPath(['a'], edges)).toEqual(['a', 'c', 'e', 'd']);
    expect(longestPath(['d', 'b'], edges)).toEqual(['b', 'd']);
  });
});

/** Kahn's algorithm, independently of the engine: is the part reachable from `roots` acyclic? */
function acyclicFrom(roots: string[], edges: Map<string, string[]>): boolean {
  const reachable = new Set<string>();
  const stack = [...roots];
  while (stack.length > 0) {
    const id = stack.pop()!;
    if (reachable.has(id)) continue;
    reachable.add(id);
    stack.push(...(edges.get(id) ?? []));
  }
  const indegree = new Map([...reachable].map((id) => [id, 0]));
  for (const id of reachable) for (const next of new Set(edges.get(id) ?? [])) indegree.set(next, indegree.get(next)! + 1);
  const ready = [...reachable].filter((id) => indegree.get(id) === 0);
  let removed = 0;
  while (ready.length > 0) {
    const id = ready.pop()!;
    removed += 1;
    for (const next of new Set(edges.get(id) ?? [])) {
      indegree.set(next, indegree.get(next)! - 1);
      if (indegree.get(next) === 0) ready.push(next);
    }
  }
  return removed === reachable.size;
}

describe('cycle detection over random dependency graphs', () => {
  // Up to 14 keys, so the depth limit (16) is never what refuses.
  const graphs = fc.integer({ min: 1, max: 14 }).chain((size) => {
    const key = fc.integer({ min: 0, max: size - 1 }).map((i) => `k${i}`);
    return fc.record({
      size: fc.constant(size),
      references: fc.array(fc.array(key, { maxLength: 4 }), { minLength: size, maxLength: size }),
      valueKeys: fc.array(fc.boolean(), { minLength: size, maxLength: size }),
      roots: fc.array(key, { minLength: 1, maxLength: 3 }),
    });
  });

  it('refuses every cycle with a real cyclic path, accepts every acyclic closure with the right values', () => {
    let cyclic = 0;
    let acyclic = 0;
    fc.assert(
      fc.property(graphs, ({ size, references, valueKeys, roots }) => {
        const edges = new Map<string, string[]>();
        for (let i = 0; i < size; i += 1) edges.set(`k${i}`, valueKeys[i] && i > 0 ? [] : references[i]);
        const expressionOf = (id: string): string => [...edges.get(id)!, '1'].join(' + ');
        const scope: FormulaScope = {
          lookup: (key) => {
            if (!edges.has(key)) return undefined;
            const refs = edges.get(key)!;
            return refs.length === 0 && valueKeys[Number(key.slice(1))]
              ? { kind: 'value', value: '1' }
              : { kind: 'expression', expression: expressionOf(key) };
          },
        };
        if (acyclicFrom(roots, edges)) {
          acyclic += 1;
          const result = materializeFormulas({ keys: roots }, scope);
          // Every key is 1 plus the sum of what it references (a value key is 1).
          const expected = new Map<string, bigint>();
          const valueOf = (id: string): bigint => {
            if (!expected.has(id)) expected.set(id, 1n + edges.get(id)!.reduce((sum, next) => sum + valueOf(next), 0n));
            return expected.get(id)!;
          };
          for (const resolved of result.keys) expect(resolved.value).toBe(String(valueOf(resolved.key)));
          expect(new Set(result.keys.map((resolved) => resolved.key))).toEqual(new Set(expected.keys()));
        } else {
          cyclic += 1;
          const error = thrown(() => materializeFormulas({ keys: roots }, scope));
          expect(error.code).toBe('FORMULA_CYCLE');
          const path = error.details!.path as string[];
          expect(path.length).toBeGreaterThanOrEqual(2);
          expect(path[0]).toBe(path[path.length - 1]);
          for (let i = 0; i + 1 < path.length; i += 1) expect(edges.get(path[i])).toContain(path[i + 1]);
        }
      }),
      { numRuns: 400 },
    );
    expect(cyclic).toBeGreaterThan(50);
    expect(acyclic).toBeGreaterThan(50);
  });

  it('orders any acyclic graph with every edge pointing backwards', () => {
    const dag = fc
      .integer({ min: 1, max: 20 })
      .chain((size) =>
        fc
          .array(fc.array(fc.nat(), { maxLength: 4 }), { minLength: size, maxLength: size })
          .map((lists) => lists.map((targets, i) => (i === 0 ? [] : [...new Set(targets.map((t) => `n${t % i}`))]))),
      );
    fc.assert(
      fc.property(dag, (lists) => {
        const successors = (id: string): string[] => lists[Number(id.slice(1))];
        const roots = lists.map((_, i) => `n${i}`).reverse();
        const order = dependencyOrder(roots, successors);
        expect(new Set(order).size).toBe(lists.length);
        expect(order).toHaveLength(lists.length);
        const position = new Map(order.map((id, i) => [id, i]));
        for (const id of order) for (const next of successors(id)) expect(position.get(next)!).toBeLessThan(position.get(id)!);
        expect(findCycle(roots, successors)).toBeNull();
      }),
      { numRuns: 200 },
    );
  });
});

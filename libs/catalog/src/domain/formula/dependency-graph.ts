/**
 * Graph walks over "x references y" edges, by node id. The closures are small (≤ 64 keys plus
 * a root), so the walks recurse.
 */
export type Successors = (id: string) => readonly string[];

const WHITE = 0;
const GREY = 1;
const BLACK = 2;

/**
 * Three-colour depth-first search from `roots`, successors in the order given. The first back
 * edge found closes a cycle, returned as the path from the node it re-enters back to that node
 * (e.g. ["a", "b", "a"]); null when the part of the graph reachable from `roots` is acyclic.
 */
export function findCycle(roots: readonly string[], successors: Successors): string[] | null {
  const colour = new Map<string, number>();
  const stack: string[] = [];
  const visit = (id: string): string[] | null => {
    colour.set(id, GREY);
    stack.push(id);
    for (const next of successors(id)) {
      const seen = colour.get(next) ?? WHITE;
      if (seen === GREY) return [...stack.slice(stack.indexOf(next)), next];
      if (seen === WHITE) {
        const cycle = visit(next);
        if (cycle) return cycle;
      }
    }
    stack.pop();
    colour.set(id, BLACK);
    return null;
  };
  for (const root of roots) {
    if ((colour.get(root) ?? WHITE) === WHITE) {
      const cycle = visit(root);
      if (cycle) return cycle;
    }
  }
  return null;
}

/** Every node reachable from `roots`, each once, dependencies before dependents. Needs an acyclic graph. */
export function dependencyOrder(roots: readonly string[], successors: Successors): string[] {
  const done = new Set<string>();
  const order: string[] = [];
  const visit = (id: string): void => {
    done.add(id);
    for (const next of successors(id)) if (!done.has(next)) visit(next);
    order.push(id);
  };
  for (const root of roots) if (!done.has(root)) visit(root);
  return order;
}

/**
 * The longest path (in edges) starting at one of `roots`, with its nodes. Needs an acyclic
 * graph; memoized, so linear in its size.
 */
export function longestPath(roots: readonly string[], successors: Successors): string[] {
  const best = new Map<string, string[]>();
  const from = (id: string): string[] => {
    const known = best.get(id);
    if (known) return known;
    let tail: string[] = [];
    for (const next of successors(id)) {
      const candidate = from(next);
      if (candidate.length > tail.length) tail = candidate;
    }
    const path = [id, ...tail];
    best.set(id, path);
    return path;
  };
  let longest: string[] = [];
  for (const root of roots) {
    const path = from(root);
    if (path.length > longest.length) longest = path;
  }
  return longest;
}

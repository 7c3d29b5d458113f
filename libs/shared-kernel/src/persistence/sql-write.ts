import { EntityManager } from 'typeorm';
import { preparedQuery } from './prepared-query';

/**
 * One INSERT, UPDATE or DELETE (without a WITH clause of its own) and its `$1…$n` values.
 * Writes that belong to one decision are combined into a single statement, so they cost one
 * round trip and commit or fail together.
 */
export interface SqlWrite {
  readonly text: string;
  readonly values: readonly unknown[];
  /**
   * The name of its CTE in a combined statement, for a later write of the same statement that
   * reads what this one RETURNs (the event log's sequence counter); unique within a statement.
   */
  readonly name?: string;
}

const PLACEHOLDER = /\$(\d+)/g;

/**
 * Each write becomes a data-modifying CTE of one statement. They all see the same snapshot and
 * none sees another's rows, so they must touch different rows; constraints (foreign keys
 * included) are checked at the end of the statement, over all of them.
 */
export function combineWrites(writes: readonly SqlWrite[]): SqlWrite {
  if (writes.length === 1 && writes[0].name === undefined) return writes[0];
  const values: unknown[] = [];
  const names = new Set<string>();
  const parts = writes.map((write, index) => {
    const offset = values.length;
    values.push(...write.values);
    const name = write.name ?? `w${index}`;
    if (names.has(name)) throw new Error(`Two writes of one statement are both named ${name}`);
    names.add(name);
    return `${name} AS (${write.text.replace(PLACEHOLDER, (_, n: string) => `$${Number(n) + offset}`)})`;
  });
  return { text: `WITH ${parts.join(',\n')}\nSELECT 1`, values };
}

/** Runs the writes as one prepared statement on the transaction's connection. */
export async function executeWrites(manager: EntityManager, writes: readonly SqlWrite[]): Promise<void> {
  if (writes.length === 0) return;
  const { text, values } = combineWrites(writes);
  await preparedQuery(manager, text, [...values]);
}

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
  /**
   * Called with the rows the write RETURNs, once the statement has run (still inside its
   * transaction): how a write that may or may not touch rows (webhook deliveries, decided in SQL)
   * hands on what it did without another round trip. The rows travel back as JSON.
   */
  readonly returned?: (rows: readonly Record<string, unknown>[]) => Promise<void> | void;
}

const PLACEHOLDER = /\$(\d+)/g;

/**
 * Each write becomes a data-modifying CTE of one statement. They all see the same snapshot and
 * none sees another's rows, so they must touch different rows; constraints (foreign keys
 * included) are checked at the end of the statement, over all of them.
 */
export function combineWrites(writes: readonly SqlWrite[]): SqlWrite {
  if (writes.length === 1 && writes[0].name === undefined && writes[0].returned === undefined) return writes[0];
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
  const returning = writes.flatMap((write, index) =>
    write.returned === undefined ? [] : [`(SELECT coalesce(json_agg(r), '[]') FROM ${write.name ?? `w${index}`} r) AS r${index}`],
  );
  return { text: `WITH ${parts.join(',\n')}\nSELECT ${returning.length === 0 ? '1' : returning.join(', ')}`, values };
}

/** Runs the writes as one prepared statement on the transaction's connection. */
export async function executeWrites(manager: EntityManager, writes: readonly SqlWrite[]): Promise<void> {
  if (writes.length === 0) return;
  const { text, values } = combineWrites(writes);
  const [row] = await preparedQuery<Record<string, unknown>>(manager, text, [...values]);
  for (const [index, write] of writes.entries()) {
    if (write.returned !== undefined) await write.returned((row?.[`r${index}`] ?? []) as Record<string, unknown>[]);
  }
}

import { createHash } from 'node:crypto';
import type { PoolClient } from 'pg';
import { EntityManager } from 'typeorm';

const names = new Map<string, string>();

export function statementName(text: string): string {
  let name = names.get(text);
  if (!name) {
    name = `s_${createHash('sha1').update(text).digest('hex').slice(0, 20)}`;
    names.set(text, name);
  }
  return name;
}

/**
 * A named prepared statement on the transaction's connection: PostgreSQL parses and plans it
 * once per connection instead of on every call (half of its CPU on a money operation).
 * Returns the rows, for every kind of statement. Outside a transaction it falls back to a
 * plain query.
 */
export async function preparedQuery<Row = Record<string, unknown>>(
  manager: EntityManager,
  text: string,
  values: unknown[],
): Promise<Row[]> {
  const runner = manager.queryRunner;
  if (!runner || runner.isReleased) return manager.query(text, values);
  const client = (await runner.connect()) as PoolClient;
  const result = await client.query({ name: statementName(text), text, values });
  return result.rows as Row[];
}

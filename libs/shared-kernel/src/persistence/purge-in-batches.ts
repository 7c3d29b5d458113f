import { DataSource } from 'typeorm';

const BATCH_SIZE = 5_000;

/**
 * Deletes a table's rows created before the cutoff, BATCH_SIZE at a time (short statements, short
 * locks); how many were deleted. Rows are named by their key columns, not ctid: on Citus a ctid
 * names a row of one shard only.
 */
export async function purgeInBatches(
  dataSource: DataSource,
  table: string,
  keyColumns: readonly string[],
  cutoff: Date,
): Promise<number> {
  const key = keyColumns.join(', ');
  let total = 0;
  for (;;) {
    const [, deleted]: [unknown, number] = await dataSource.query(
      `DELETE FROM ${table} WHERE (${key}) IN (SELECT ${key} FROM ${table} WHERE created_at < $1 LIMIT ${BATCH_SIZE})`,
      [cutoff],
    );
    total += deleted;
    if (deleted < BATCH_SIZE) return total;
  }
}

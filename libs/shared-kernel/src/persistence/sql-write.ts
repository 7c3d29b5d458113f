import { EntityManager } from 'typeorm';
import { StaleWriteError } from './database-errors';
import { preparedQuery } from './prepared-query';
import { afterCommit, DeferredStatement, deferWrites } from './write-pipeline';

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
   * reads what this one RETURNs (the event rows, read by the webhook hook); unique within a statement.
   */
  readonly name?: string;
  /**
   * An UPDATE guarded by what its decision read (each row's version in its WHERE) must change
   * exactly `rows` rows; when it changes fewer, a row changed since it was read, and executeWrites
   * throws StaleWriteError naming `what` (the transaction is then retried, never half-applied).
   */
  readonly expectChanged?: { readonly rows: number; readonly what: string };
  /**
   * Called with the rows the write RETURNs once its transaction has committed (never when it
   * rolls back): how a write that may or may not touch rows (webhook deliveries, decided in SQL)
   * hands on what it did without another round trip, and without keeping its statement from
   * travelling with the COMMIT. The rows travel back as JSON. The callback handles its own
   * failures: nothing awaits it.
   */
  readonly committed?: (rows: readonly Record<string, unknown>[]) => void;
}

/** A combined statement and, for each guarded write, how to read the count of rows it changed. */
export interface CombinedWrite extends SqlWrite {
  readonly checks?: ReadonlyArray<{ column: string; rows: number; what: string }>;
  /** One write alone, not combined: its RETURNING rows are its changed rows. */
  readonly alone?: boolean;
}

const PLACEHOLDER = /\$(\d+)/g;

/**
 * A write's text with its placeholders moved up by `offset`, as it sits in a combined statement.
 * The texts are the repositories' constants, combined at the same offsets request after request:
 * each rewrite is kept (a text built per call, e.g. with one placeholder per row, adds entries, so
 * the cache is emptied once it holds MAX_SHIFTED texts).
 */
const shifted = new Map<string, Map<number, string>>();
const MAX_SHIFTED = 500;

function shiftPlaceholders(text: string, offset: number): string {
  if (offset === 0) return text;
  let byOffset = shifted.get(text);
  if (byOffset === undefined) {
    if (shifted.size >= MAX_SHIFTED) shifted.clear();
    shifted.set(text, (byOffset = new Map()));
  }
  let result = byOffset.get(offset);
  if (result === undefined) {
    result = text.replace(PLACEHOLDER, (_, n: string) => `$${Number(n) + offset}`);
    byOffset.set(offset, result);
  }
  return result;
}

/**
 * A guarded write's refusal raised by the statement itself (a cast that fails with a marker naming
 * the check), for a statement sent in one round trip with its COMMIT: PostgreSQL then skips the
 * COMMIT, where a count read back in Node would come after it.
 */
const STALE_MARKER = 'stale_write:';
const STALE_MARKER_PATTERN = /"stale_write:(\d+):/;

/** The StaleWriteError of a statement combined with `enforced` whose guarded write changed no row, else undefined. */
function staleWriteOf(error: unknown, combined: CombinedWrite): StaleWriteError | undefined {
  const match = error instanceof Error ? STALE_MARKER_PATTERN.exec(error.message) : null;
  const check = match ? combined.checks?.[Number(match[1])] : undefined;
  return check && new StaleWriteError(check.what);
}

/**
 * Each write becomes a data-modifying CTE of one statement. They all see the same snapshot and
 * none sees another's rows, so they must touch different rows; constraints (foreign keys
 * included) are checked at the end of the statement, over all of them.
 */
export function combineWrites(writes: readonly SqlWrite[], { enforced = false }: { enforced?: boolean } = {}): CombinedWrite {
  if (
    writes.length === 1 &&
    writes[0].name === undefined &&
    writes[0].committed === undefined &&
    !(enforced && writes[0].expectChanged !== undefined)
  ) {
    const [write] = writes;
    if (write.expectChanged === undefined) return write;
    return {
      text: `${write.text} RETURNING 1 AS w0`,
      values: write.values,
      checks: [{ column: 'w0', ...write.expectChanged }],
      alone: true,
    };
  }
  const values: unknown[] = [];
  const names = new Set<string>();
  const checks: Array<{ column: string; rows: number; what: string }> = [];
  const parts = writes.map((write, index) => {
    const offset = values.length;
    values.push(...write.values);
    const name = write.name ?? `w${index}`;
    if (names.has(name)) throw new Error(`Two writes of one statement are both named ${name}`);
    names.add(name);
    const text = shiftPlaceholders(write.text, offset);
    if (write.expectChanged === undefined) return `${name} AS (${text})`;
    if (write.name !== undefined) throw new Error(`The guarded write ${name} cannot also be read by name`);
    checks.push({ column: name, ...write.expectChanged });
    return `${name} AS (${text} RETURNING 1)`;
  });
  const counted = checks.map(({ column, rows }, index) =>
    enforced
      ? `CASE WHEN (SELECT count(*) FROM ${column}) = ${rows} THEN ${rows} ELSE ('${STALE_MARKER}${index}:' || (SELECT count(*) FROM ${column}))::int END AS ${column}`
      : `(SELECT count(*) FROM ${column})::int AS ${column}`,
  );
  const returning = writes.flatMap((write, index) =>
    write.committed === undefined
      ? []
      : [`(SELECT coalesce(json_agg(r), '[]') FROM ${write.name ?? `w${index}`} r) AS r${index}`],
  );
  const select = [...counted, ...returning];
  return {
    text: `WITH ${parts.join(',\n')}\nSELECT ${select.length === 0 ? '1' : select.join(', ')}`,
    values,
    ...(checks.length > 0 && { checks }),
  };
}

/**
 * Runs the writes as one prepared statement on the transaction's connection; a guarded write that
 * changed no row throws StaleWriteError. With `defer`, inside a transaction on a pipelined
 * connection (write-pipeline.ts), the writes wait for the transaction's next statement instead
 * and go with it, in the same round trip as its COMMIT when that comes next: for the last writes
 * of a decision, whose errors may surface at that statement rather than here.
 */
export async function executeWrites(
  manager: EntityManager,
  writes: readonly SqlWrite[],
  { defer }: { defer?: 'after_pending' | 'alongside_pending' } = {},
): Promise<void> {
  if (writes.length === 0) return;
  const deferred =
    defer !== undefined &&
    (await deferWrites(manager, writes, defer === 'alongside_pending', (batch) => enforcedStatement(manager, batch)));
  if (deferred) return;
  const combined = combineWrites(writes);
  const rows = await preparedQuery<Record<string, unknown>>(manager, combined.text, [...combined.values]);
  await settleWrites(manager, combined, writes, rows);
}

/** After a combined statement ran: its guarded writes' counts checked, then the RETURNed rows handed on after commit. */
async function settleWrites(
  manager: EntityManager,
  { checks, alone }: CombinedWrite,
  writes: readonly SqlWrite[],
  rows: readonly Record<string, unknown>[],
): Promise<void> {
  for (const { column, rows: expected, what } of checks ?? []) {
    const changed = alone ? rows.length : Number(rows[0]?.[column] ?? 0);
    if (changed !== expected) throw new StaleWriteError(what);
  }
  for (const [index, write] of writes.entries()) {
    const then = write.committed;
    if (then !== undefined) {
      const returned = (rows[0]?.[`r${index}`] ?? []) as Record<string, unknown>[];
      await afterCommit(manager, () => then(returned));
    }
  }
}

/** The deferred writes of a transaction as the one statement sent with what follows them. */
function enforcedStatement(manager: EntityManager, writes: readonly SqlWrite[]): DeferredStatement {
  const combined = combineWrites(writes, { enforced: true });
  return {
    text: combined.text,
    values: [...combined.values],
    settle: (rows) => settleWrites(manager, combined, writes, rows),
    failure: (error) => staleWriteOf(error, combined) ?? error,
  };
}

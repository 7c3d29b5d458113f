/** A unique index refused the write (23505), whether TypeORM wrapped the driver's error or not. */
export function isUniqueViolation(error: unknown): boolean {
  return sqlState(error) === '23505';
}

/** The SQLSTATE of a database error, whether TypeORM wrapped the driver's error or not. */
function sqlState(error: unknown): string | undefined {
  const candidate = error as { code?: unknown; driverError?: { code?: unknown } } | null;
  const code = candidate?.driverError?.code ?? candidate?.code;
  return typeof code === 'string' ? code : undefined;
}

/**
 * The database refused the data itself (a constraint, a data exception or a trigger's raise):
 * retrying the same write fails again, unlike a deadlock, a serialization failure or a lost connection.
 */
export function isRefusedWrite(error: unknown): boolean {
  const state = sqlState(error);
  return state !== undefined && (state.startsWith('22') || state.startsWith('23') || state === 'P0001');
}

/** What the driver says when the server went away, before or during the statement. */
const CONNECTION_LOST = /Connection terminated|connection error|timeout exceeded when trying to connect/;
/** Connection exceptions (08), the server shutting down or starting (57P0x), no connection slot left. */
const UNAVAILABLE_STATES = /^(08...|57P0[123]|53300|ECONNREFUSED|ECONNRESET|EPIPE|ETIMEDOUT)$/;

/**
 * The database could not be reached or went away: nothing about the request is wrong, and it
 * may be retried.
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  const state = sqlState(error);
  return (
    (state !== undefined && UNAVAILABLE_STATES.test(state)) || (error instanceof Error && CONNECTION_LOST.test(error.message))
  );
}

/**
 * A write guarded by what its transaction read (a row's version) found the row changed: the
 * decision was taken on a stale read. Nothing of the transaction may commit; running it again
 * reads the row anew. Seen when a row lock did not hold, e.g. while Citus moves the row's shard
 * to another node (the lock was taken on the old placement, the write lands on the new one).
 */
export class StaleWriteError extends Error {
  constructor(readonly what: string) {
    super(`${what} changed since it was read`);
    this.name = 'StaleWriteError';
  }
}

/**
 * Citus refusing a statement because the shard placement it planned for moved or split meanwhile
 * (a tenant isolation or a shard move committed between the plan and the statement): internal
 * errors (XX000) that the same transaction, run again, does not meet.
 */
const CITUS_PLACEMENT_CHANGED =
  /could not find valid entry for shard|shard for the given value does not exist|could not find placement|shard \d+ (?:does not exist|not found)|relation "[a-z_]+_\d+" does not exist|is being moved|is being split/;

/**
 * A failure of the transaction, not of the request: a stale guarded write, a serialization
 * failure (40001), a deadlock (40P01, Citus's distributed deadlock included), a lock wait past
 * lock_timeout (55P03: e.g. the writes Citus holds while it splits a tenant's shards), a shard
 * placement that changed under the statement. The whole transaction may run again and then succeed.
 */
export function isTransientWriteFailure(error: unknown): boolean {
  // A guarded write deferred to the COMMIT (write-pipeline.ts) fails inside TypeORM's COMMIT, which wraps it.
  if (error instanceof StaleWriteError || (error as { driverError?: unknown } | null)?.driverError instanceof StaleWriteError)
    return true;
  const state = sqlState(error);
  if (state === '40001' || state === '40P01' || state === '55P03') return true;
  const message = error instanceof Error ? error.message : '';
  return (state === 'XX000' || state === '42P01') && CITUS_PLACEMENT_CHANGED.test(message);
}

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

/**
 * The embedded PostgreSQL could not start. The message is one line that says what failed and
 * what to do; main.ts and the CLI print it alone (no stack trace) and exit non-zero.
 */
export class EmbeddedPostgresError extends Error {
  constructor(problem: string) {
    super(`Could not start the embedded PostgreSQL: ${oneLine(problem)} (or set DATABASE_URL to use a PostgreSQL of your own)`);
  }
}

function oneLine(text: string): string {
  return text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '')
    .join(' ');
}

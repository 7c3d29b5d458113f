import { createHash } from 'node:crypto';
import { DataSource } from 'typeorm';

/** A secret the client saw (or the server holds), under a label that names it in a failure without printing it. */
export interface Secret {
  label: string;
  value: string | Buffer;
  /**
   * A secret a person chose (a password): guessable, so a fast unkeyed digest of it (MD5,
   * SHA-1, SHA-256) lets whoever reads it test guesses offline, as good as the plaintext.
   */
  guessable?: boolean;
}

/** Fast unkeyed digests: stored over a guessable secret, they bypass the memory-hard password hash. */
export const FAST_DIGESTS = ['md5', 'sha1', 'sha256'] as const;

/**
 * The spellings a secret could rest in: the raw text (or, for binary secrets, the raw bytes
 * read as latin1), hex (also how PostgreSQL prints bytea), base64 and base64url. A token's
 * random part alone (the text after its `sk_live_`/`sk_test_`/`sess_` kind) too, so a store
 * that strips the kind is caught; for a guessable secret, its fast digests as well.
 */
export function spellings(secret: Secret): Array<{ label: string; needle: string }> {
  const bytes = typeof secret.value === 'string' ? Buffer.from(secret.value, 'utf8') : secret.value;
  const forms: Array<[string, string]> = [
    ['raw', bytes.toString('latin1')],
    ['hex', bytes.toString('hex')],
    ['base64', bytes.toString('base64').replace(/=+$/, '')],
    ['base64url', bytes.toString('base64url')],
  ];
  if (secret.guessable) {
    for (const algorithm of FAST_DIGESTS) {
      const digest = createHash(algorithm).update(bytes).digest();
      forms.push(
        [`${algorithm} hex`, digest.toString('hex')],
        [`${algorithm} base64`, digest.toString('base64').replace(/=+$/, '')],
      );
    }
  }
  const token = typeof secret.value === 'string' ? /^(?:sk_live|sk_test|sess)_([0-9A-Za-z]{40,})$/.exec(secret.value) : null;
  if (token) forms.push(['random part', token[1]]);
  return [...new Map(forms.map(([form, needle]) => [needle, { label: `${secret.label} (${form})`, needle }])).values()];
}

export interface Haystack {
  /** `schema.table`, or a log's name. */
  source: string;
  text: string;
}

export interface DatabaseDump {
  haystacks: Haystack[];
  schemas: string[];
  tables: number;
  rows: number;
  /** Columns of a text, json, binary or array type (the ones a secret could be written to). */
  textColumns: number;
  characters: number;
}

const SYSTEM_SCHEMAS = `n.nspname NOT IN ('pg_catalog', 'information_schema') AND n.nspname NOT LIKE 'pg\\_%'`;

/**
 * Every row of every table of every non-system schema (the application's, pg-boss's, any
 * other), found in pg_catalog: each row as PostgreSQL prints it (bytea as hex, jsonb as
 * JSON, arrays and composites spelled out), and each bytea value once more as raw bytes.
 */
export async function dumpDatabase(db: DataSource): Promise<DatabaseDump> {
  const tables: Array<{ schema: string; name: string; bytea: string[] | null; text_columns: number }> = await db.query(
    `SELECT n.nspname AS schema, c.relname AS name,
            array_agg(a.attname::text ORDER BY a.attnum) FILTER (WHERE t.typname = 'bytea') AS bytea,
            count(*) FILTER (WHERE t.typcategory IN ('S', 'U', 'A') OR t.typname IN ('bytea', 'json', 'jsonb'))::int AS text_columns
       FROM pg_catalog.pg_class c
       JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
       JOIN pg_catalog.pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
       JOIN pg_catalog.pg_type t ON t.oid = a.atttypid
      WHERE c.relkind IN ('r', 'p', 'm') AND ${SYSTEM_SCHEMAS}
      GROUP BY n.nspname, c.relname ORDER BY n.nspname, c.relname`,
  );
  const dump: DatabaseDump = { haystacks: [], schemas: [], tables: tables.length, rows: 0, textColumns: 0, characters: 0 };
  for (const { schema, name, bytea, text_columns } of tables) {
    const source = `${schema}.${name}`;
    const relation = `"${schema}"."${name}"`;
    const rows: Array<{ row: string }> = await db.query(`SELECT x::text AS row FROM ${relation} x`);
    const parts = rows.map(({ row }) => row);
    for (const column of bytea ?? []) {
      const values: Array<{ value: Buffer }> = await db.query(
        `SELECT "${column}" AS value FROM ${relation} WHERE "${column}" IS NOT NULL`,
      );
      parts.push(...values.map(({ value }) => value.toString('latin1')));
    }
    const text = parts.join('\n');
    dump.haystacks.push({ source, text });
    dump.rows += rows.length;
    dump.textColumns += text_columns;
    dump.characters += text.length;
    if (!dump.schemas.includes(schema)) dump.schemas.push(schema);
  }
  return dump;
}

/** Where each secret appears in any spelling: `"<secret> (<form>) in <source>"`, empty when none does. */
export function findSecrets(secrets: Secret[], haystacks: Haystack[]): string[] {
  const found: string[] = [];
  for (const secret of secrets) {
    for (const { label, needle } of spellings(secret)) {
      for (const { source, text } of haystacks) if (text.includes(needle)) found.push(`${label} in ${source}`);
    }
  }
  return found;
}

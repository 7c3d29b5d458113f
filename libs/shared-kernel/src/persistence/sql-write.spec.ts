import { combineWrites, executeWrites } from './sql-write';

describe('combineWrites', () => {
  it('leaves a single write as it is', () => {
    const write = { text: 'UPDATE t SET a = $1 WHERE id = $2', values: [1, 'x'] };
    expect(combineWrites([write])).toBe(write);
  });

  it('renumbers each write’s placeholders after the values of the writes before it, casts included', () => {
    const combined = combineWrites([
      { text: 'UPDATE a SET v = $2 WHERE id = $1', values: ['a1', 'a2'] },
      { text: 'INSERT INTO b SELECT * FROM jsonb_to_recordset($1::jsonb) AS r(x int) WHERE $1 IS NOT NULL', values: ['[]'] },
      { text: 'DELETE FROM c WHERE id = $10 OR id = $1', values: Array.from({ length: 10 }, (_, i) => `c${i + 1}`) },
    ]);
    expect(combined.text).toBe(
      'WITH w0 AS (UPDATE a SET v = $2 WHERE id = $1),\n' +
        'w1 AS (INSERT INTO b SELECT * FROM jsonb_to_recordset($3::jsonb) AS r(x int) WHERE $3 IS NOT NULL),\n' +
        'w2 AS (DELETE FROM c WHERE id = $13 OR id = $4)\nSELECT 1',
    );
    expect(combined.values).toEqual(['a1', 'a2', '[]', 'c1', 'c2', 'c3', 'c4', 'c5', 'c6', 'c7', 'c8', 'c9', 'c10']);
  });

  it('names a write’s CTE when it says so, so a later write reads what it RETURNs; two of one name are refused', () => {
    const counter = { name: 'event_sequence', text: 'UPDATE s SET n = n + $1 RETURNING n', values: [1] };
    const reader = { text: 'INSERT INTO e SELECT n, $1 FROM event_sequence', values: ['x'] };
    expect(combineWrites([counter]).text).toBe('WITH event_sequence AS (UPDATE s SET n = n + $1 RETURNING n)\nSELECT 1');
    expect(combineWrites([counter, reader]).text).toBe(
      'WITH event_sequence AS (UPDATE s SET n = n + $1 RETURNING n),\nw1 AS (INSERT INTO e SELECT n, $2 FROM event_sequence)\nSELECT 1',
    );
    expect(() => combineWrites([counter, reader, counter])).toThrow('Two writes of one statement are both named event_sequence');
  });

  it('counts the rows of each guarded write: RETURNING on it, a count per guarded write in the final SELECT', () => {
    const combined = combineWrites([
      {
        text: 'UPDATE a SET v = $2 WHERE id = $1 AND version = $3',
        values: ['a1', 'a2', 7],
        expectChanged: { rows: 1, what: 'a a1' },
      },
      { text: 'INSERT INTO b VALUES ($1)', values: ['b1'] },
    ]);
    expect(combined.text).toBe(
      'WITH w0 AS (UPDATE a SET v = $2 WHERE id = $1 AND version = $3 RETURNING 1),\n' +
        'w1 AS (INSERT INTO b VALUES ($4))\nSELECT (SELECT count(*) FROM w0)::int AS w0',
    );
    expect(combined.checks).toEqual([{ column: 'w0', rows: 1, what: 'a a1' }]);
    const single = combineWrites([{ text: 'UPDATE a SET v = $1', values: [1], expectChanged: { rows: 1, what: 'a' } }]);
    expect(single).toEqual({
      text: 'UPDATE a SET v = $1 RETURNING 1 AS w0',
      values: [1],
      checks: [{ column: 'w0', rows: 1, what: 'a' }],
      alone: true,
    });
  });

  it('answers, in the same statement, the rows of the writes that ask for them, and hands each its own (at once outside a transaction)', async () => {
    const seen: Array<readonly Record<string, unknown>[]> = [];
    const writes = [
      { text: 'UPDATE a SET v = $1', values: [1] },
      {
        text: 'INSERT INTO d SELECT $1 RETURNING id',
        values: ['x'],
        committed: (rows: readonly Record<string, unknown>[]) => void seen.push(rows),
      },
      {
        text: 'INSERT INTO e SELECT $1 RETURNING id',
        values: ['y'],
        committed: (rows: readonly Record<string, unknown>[]) => void seen.push(rows),
      },
    ];
    expect(combineWrites(writes).text).toBe(
      'WITH w0 AS (UPDATE a SET v = $1),\nw1 AS (INSERT INTO d SELECT $2 RETURNING id),\nw2 AS (INSERT INTO e SELECT $3 RETURNING id)\n' +
        "SELECT (SELECT coalesce(json_agg(r), '[]') FROM w1 r) AS r1, (SELECT coalesce(json_agg(r), '[]') FROM w2 r) AS r2",
    );
    const statements: string[] = [];
    const manager = {
      queryRunner: undefined,
      query: (text: string) => {
        statements.push(text);
        return Promise.resolve([{ r1: [{ id: 'd1' }, { id: 'd2' }], r2: [] }]);
      },
    };
    await executeWrites(manager as never, writes);
    expect(statements).toHaveLength(1);
    expect(seen).toEqual([[{ id: 'd1' }, { id: 'd2' }], []]);
  });
});

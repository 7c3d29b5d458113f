import { Injectable, OnModuleInit } from '@nestjs/common';
import { Query } from 'pg';
import type { Pool, PoolClient, QueryResult } from 'pg';
import { DataSource, EntityManager } from 'typeorm';
import { statementName } from './prepared-query';

/**
 * Fewer round trips per transaction, with the same statements in the same order, on every
 * connection of the pool (installWritePipeline):
 * - START TRANSACTION waits for the transaction's first statement and travels with it (one
 *   extended-protocol message train, one Sync): BEGIN costs no round trip of its own.
 * - Writes deferred by executeWrites(…, { defer }) wait for the transaction's next statement and
 *   run just before it; when that is the COMMIT, the writes and the COMMIT go in one train, so
 *   that a decision's last statement also commits (an error in the writes makes PostgreSQL skip
 *   the COMMIT, and the transaction is rolled back as before). Rows locked by the decision, and
 *   the workspace's event counter the writes take, are then held for that round trip only.
 * - What must wait for the COMMIT (afterCommit: queueing work that reads the rows just written)
 *   runs once it has succeeded, never after a ROLLBACK, so nothing the writes RETURN has to be
 *   handed on inside the transaction, and the last writes can always travel with the COMMIT.
 * Nothing is reordered: whatever a transaction sends (through TypeORM, preparedQuery or pg
 * itself) first sends what waits. A ROLLBACK drops deferred writes.
 */

/** The statement deferred writes become, and what to do with its rows or its error. */
export interface DeferredStatement {
  text: string;
  values: unknown[];
  settle(rows: readonly Record<string, unknown>[]): Promise<void>;
  failure(error: unknown): unknown;
}

type Build = (writes: readonly never[]) => DeferredStatement;

interface Deferred {
  writes: unknown[];
  build: Build;
}

interface Pipeline {
  beginPending: boolean;
  deferred: Deferred | null;
  /** What runs once the transaction commits (afterCommit). */
  committed: Array<() => void>;
  send: PoolClient['query'];
}

const PIPELINES = new WeakMap<object, Pipeline>();
const BEGIN = 'START TRANSACTION';
const FAKE_RESULT = (command: string): QueryResult => ({ command, rowCount: null, oid: 0, fields: [], rows: [] });

/** Pipelines every connection the pool opens from now on, and the ones it holds. */
function installWritePipeline(pool: Pool): void {
  pool.on('connect', (client) => pipeline(client));
  pool.on('release', (_error, client) => reset(client));
  for (const client of (pool as unknown as { _clients?: PoolClient[] })._clients ?? []) pipeline(client);
}

function reset(client: object): void {
  const state = PIPELINES.get(client);
  if (state) clear(state);
}

function clear(state: Pipeline): void {
  state.beginPending = false;
  state.deferred = null;
  state.committed = [];
}

function pipeline(client: PoolClient): void {
  if (PIPELINES.has(client)) return;
  const send = client.query.bind(client) as PoolClient['query'];
  const state: Pipeline = { beginPending: false, deferred: null, committed: [], send };
  PIPELINES.set(client, state);
  client.query = ((config: unknown, values?: unknown, callback?: unknown) => {
    if (!state.beginPending && state.deferred === null && state.committed.length === 0 && config !== BEGIN) {
      return (send as AnyQuery)(config, values, callback);
    }
    if (typeof values === 'function' || typeof callback === 'function' || isSubmittable(config)) {
      // Callback and submittable forms answer synchronously: what waits is sent first, unpipelined.
      flushUnpipelined(state);
      return (send as AnyQuery)(config, values, callback);
    }
    return run(state, config, values as unknown[] | undefined);
  }) as PoolClient['query'];
}

type AnyQuery = (config: unknown, values?: unknown, callback?: unknown) => unknown;

function isSubmittable(config: unknown): boolean {
  return typeof config === 'object' && config !== null && typeof (config as { submit?: unknown }).submit === 'function';
}

function textOf(config: unknown, values: unknown[] | undefined): string | undefined {
  if (typeof config === 'string') return values === undefined || values.length === 0 ? config : undefined;
  return undefined;
}

/** Registers writes to go with the transaction's next statement; false when they must run now (no pipelined transaction). */
export async function deferWrites<W>(
  manager: EntityManager,
  writes: readonly W[],
  alongsidePending: boolean,
  build: (writes: readonly W[]) => DeferredStatement,
): Promise<boolean> {
  const runner = manager.queryRunner;
  if (!runner || runner.isReleased || !runner.isTransactionActive) return false;
  const client = (await runner.connect()) as PoolClient;
  const state = PIPELINES.get(client);
  if (!state) return false;
  if (state.deferred !== null && !alongsidePending) {
    // Two decisions' writes never share a statement (its CTEs would not see each other's rows).
    await flush(state, false);
  }
  if (state.deferred === null) state.deferred = { writes: [...writes], build: build as Build };
  else state.deferred.writes.push(...writes);
  return true;
}

/**
 * Runs `then` once the manager's transaction has committed, and never if it rolls back; at once
 * when the manager is in no pipelined transaction. `then` handles its own failures (it runs after
 * the caller's work is done, and nothing awaits it).
 */
export async function afterCommit(manager: EntityManager, then: () => void): Promise<void> {
  const runner = manager.queryRunner;
  const state =
    runner && !runner.isReleased && runner.isTransactionActive ? PIPELINES.get((await runner.connect()) as object) : undefined;
  if (state) state.committed.push(then);
  else then();
}

async function sendCommit(state: Pipeline): Promise<QueryResult> {
  const result = await ((state.send as AnyQuery)('COMMIT') as Promise<QueryResult>);
  runCommitted(state);
  return result;
}

function runCommitted(state: Pipeline): void {
  const committed = state.committed;
  state.committed = [];
  for (const then of committed) then();
}

async function run(state: Pipeline, config: unknown, values: unknown[] | undefined): Promise<QueryResult> {
  const text = textOf(config, values);
  if (text === BEGIN && !state.beginPending && state.deferred === null) {
    state.beginPending = true;
    return FAKE_RESULT('BEGIN');
  }
  if (text === 'ROLLBACK') {
    const begun = !state.beginPending;
    clear(state);
    return begun ? ((state.send as AnyQuery)('ROLLBACK') as Promise<QueryResult>) : FAKE_RESULT('ROLLBACK');
  }
  if (text === 'COMMIT') {
    if (state.deferred === null && state.beginPending) {
      // Nothing was sent since BEGIN (which is still waiting): the transaction never started.
      state.beginPending = false;
      runCommitted(state);
      return FAKE_RESULT('COMMIT');
    }
    try {
      if (state.deferred !== null && (await flush(state, true))) {
        runCommitted(state);
        return FAKE_RESULT('COMMIT');
      }
      return await sendCommit(state);
    } finally {
      state.committed = [];
    }
  }
  if (state.deferred !== null) await flush(state, false);
  if (state.beginPending) {
    state.beginPending = false;
    if (text !== undefined) {
      await (state.send as AnyQuery)(BEGIN);
      return (state.send as AnyQuery)(config, values) as Promise<QueryResult>;
    }
    return sendTrain(state, normalize(config, values), [BEGIN], []);
  }
  return (state.send as AnyQuery)(config, values) as Promise<QueryResult>;
}

function normalize(config: unknown, values: unknown[] | undefined): { name?: string; text: string; values: unknown[] } {
  if (typeof config === 'string') return { text: config, values: values ?? [] };
  const c = config as { name?: string; text: string; values?: unknown[] };
  return { name: c.name, text: c.text, values: values ?? c.values ?? [] };
}

/**
 * The deferred writes' statement, after a pending BEGIN and (when asked) before the COMMIT; then
 * their rows settled. Answers whether it committed.
 */
async function flush(state: Pipeline, commit: boolean): Promise<boolean> {
  const deferred = state.deferred;
  if (deferred === null) return false;
  state.deferred = null;
  const statement = deferred.build(deferred.writes as never[]);
  const after = commit ? ['COMMIT'] : [];
  const before = state.beginPending ? [BEGIN] : [];
  state.beginPending = false;
  let result: QueryResult;
  try {
    result = await sendTrain(
      state,
      { name: statementName(statement.text), text: statement.text, values: statement.values },
      before,
      after,
    );
  } catch (error) {
    throw statement.failure(error);
  }
  await statement.settle(result.rows as Record<string, unknown>[]);
  return after.length > 0;
}

function flushUnpipelined(state: Pipeline): void {
  if (state.beginPending) {
    state.beginPending = false;
    void ((state.send as AnyQuery)(BEGIN) as Promise<unknown>).catch(() => undefined);
  }
  if (state.deferred !== null) {
    // Its failure aborts the transaction, which the caller's statement then reports.
    void flush(state, false).catch(() => undefined);
  }
}

interface QueryInternals {
  portal: string;
  prepare(connection: WireConnection): void;
  _getRows(connection: WireConnection, rows?: number): void;
  handleCommandComplete(message: unknown, connection: WireConnection): void;
}

interface WireConnection {
  parse(query: { text: string; name?: string }): void;
  bind(config: object): void;
  execute(config: { portal?: string; rows?: number }): void;
  sync(): void;
}

/**
 * One extended-protocol train: `before` statements, the statement, `after` statements, one Sync.
 * Only the statement's own result is kept; an error in any of them ends the train (PostgreSQL
 * skips the rest until the Sync) and is the query's error.
 */
class TrainQuery extends (Query as unknown as new (config: object, values: undefined, callback: object) => QueryInternals) {
  private completed = 0;

  constructor(
    config: { name?: string; text: string; values: unknown[] },
    private readonly before: readonly string[],
    private readonly after: readonly string[],
    callback: (error: Error | undefined, result: QueryResult) => void,
  ) {
    super(config, undefined, callback);
  }

  override prepare(connection: WireConnection): void {
    for (const text of this.before) sendSimple(connection, text);
    super.prepare(connection);
  }

  override _getRows(connection: WireConnection, rows?: number): void {
    connection.execute({ portal: this.portal, rows });
    for (const text of this.after) sendSimple(connection, text);
    connection.sync();
  }

  override handleCommandComplete(message: unknown, connection: WireConnection): void {
    const index = this.completed;
    this.completed += 1;
    if (index === this.before.length) super.handleCommandComplete(message, connection);
  }
}

function sendSimple(connection: WireConnection, text: string): void {
  connection.parse({ text });
  connection.bind({});
  connection.execute({});
}

function sendTrain(
  state: Pipeline,
  config: { name?: string; text: string; values: unknown[] },
  before: readonly string[],
  after: readonly string[],
): Promise<QueryResult> {
  return new Promise((resolve, reject) => {
    const query = new TrainQuery(config, before, after, (error, result) => (error ? reject(error) : resolve(result)));
    (state.send as AnyQuery)(query);
  });
}

/** Installs the pipeline on the application's pool at start-up. */
@Injectable()
export class WritePipeline implements OnModuleInit {
  constructor(private readonly dataSource: DataSource) {}

  onModuleInit(): void {
    installWritePipeline((this.dataSource.driver as unknown as { master: Pool }).master);
  }
}

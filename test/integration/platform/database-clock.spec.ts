import { DataSource, QueryRunner } from 'typeorm';
import { DatabaseClock } from '../../../libs/shared-kernel/src/persistence/database-clock';
import { databaseNow } from '../../support/skewed-clock';
import { createTestDatabase, TestDatabase } from '../../support/test-database';

const LATE_MS = 400;

/**
 * R9: the app's "now" is the database's, through an offset measured over round trips. A round
 * trip whose answer reaches the process late (a connection being opened, a busy event loop on a
 * loaded machine) must not skew that offset: here the first answer of the sync arrives 400 ms
 * late, and "now" must still agree with PostgreSQL's clock_timestamp() within a few milliseconds.
 */
describe('DatabaseClock on PostgreSQL', () => {
  let database: TestDatabase;
  let dataSource: DataSource;

  beforeAll(async () => {
    database = await createTestDatabase();
    dataSource = await new DataSource({ type: 'postgres', url: database.url, poolSize: 2 }).initialize();
  });
  afterAll(async () => {
    await dataSource?.destroy();
    await database?.drop();
  });

  /** The DataSource, but the first query answered through it (either way) is delivered LATE_MS late. */
  function withOneLateAnswer(): DataSource {
    let late = true;
    const delay = async <T>(answer: Promise<T>): Promise<T> => {
      const value = await answer;
      if (late) {
        late = false;
        await new Promise((resolve) => setTimeout(resolve, LATE_MS));
      }
      return value;
    };
    return new Proxy(dataSource, {
      get(target, property, receiver) {
        if (property === 'query') return (sql: string, parameters?: unknown[]) => delay(target.query(sql, parameters));
        if (property === 'createQueryRunner')
          return () => {
            const runner = target.createQueryRunner();
            return new Proxy(runner, {
              get(inner, name, innerReceiver) {
                if (name === 'query') return (sql: string, parameters?: unknown[]) => delay(inner.query(sql, parameters));
                const value = Reflect.get(inner, name, innerReceiver);
                return typeof value === 'function' ? value.bind(inner) : value;
              },
            }) as QueryRunner;
          };
        const value = Reflect.get(target, property, receiver);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
  }

  it('agrees with clock_timestamp() within a few ms even when a round trip of its sync is 400 ms late', async () => {
    const clock = new DatabaseClock(withOneLateAnswer());
    await clock.onModuleInit();
    try {
      const errors: number[] = [];
      for (let reading = 0; reading < 5; reading += 1) {
        const before = await databaseNow(dataSource);
        const now = clock.now().getTime();
        const after = await databaseNow(dataSource);
        // Outside [before, after] by how much (0 when inside).
        errors.push(Math.max(before.getTime() - now, now - after.getTime(), 0));
      }
      console.log(`DatabaseClock: distance outside the database's bracketing readings (ms): ${errors.join(', ')}`);
      expect(Math.max(...errors)).toBeLessThanOrEqual(25);
    } finally {
      clock.onModuleDestroy();
    }
  });
});

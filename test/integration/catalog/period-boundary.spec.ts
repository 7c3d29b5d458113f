import fc from 'fast-check';
import { Client } from 'pg';
import { addCadence } from '../../../libs/catalog/src/domain/subscription';
import { createTestDatabase, TestDatabase } from '../../support/test-database';

/**
 * A next_period move waits for catalog_period_end_after (SQL): the first period boundary
 * anchor + k·cadence (k ≥ 1) strictly after the go-live. It must agree with the period the
 * application gives a new subscription (addCadence), month ends and leap days included.
 */
describe('catalog_period_end_after agrees with addCadence', () => {
  let database: TestDatabase;
  let client: Client;

  beforeAll(async () => {
    database = await createTestDatabase();
    client = new Client({ connectionString: database.url });
    await client.connect();
    // Boundaries are UTC calendar dates whatever the session's time zone.
    await client.query(`SET TimeZone = 'America/New_York'`);
  });
  afterAll(async () => {
    await client.end();
    await database.drop();
  });

  it('gives the first boundary after the instant for 300 random anchors, cadences and instants (seed printed)', async () => {
    const seed = process.env.SEED ? Number(process.env.SEED) : Math.floor(Math.random() * 2 ** 31);
    console.log(`period boundary: SEED=${seed}`);
    const instant = fc.date({
      min: new Date('2020-01-01T00:00:00Z'),
      max: new Date('2032-12-31T00:00:00Z'),
      noInvalidDate: true,
    });
    const cases = fc.sample(fc.tuple(instant, fc.constantFrom('week' as const, 'month' as const, 'year' as const), instant), {
      seed,
      numRuns: 300,
    });
    for (const [anchor, cadence, after] of cases) {
      let k = 1;
      while (addCadence(anchor, cadence, k).getTime() <= after.getTime()) k += 1;
      const [row] = (await client.query(`SELECT catalog_period_end_after($1, $2, $3) AS end`, [anchor, cadence, after])).rows;
      expect({ anchor, cadence, after, end: row.end.toISOString() }).toEqual({
        anchor,
        cadence,
        after,
        end: addCadence(anchor, cadence, k).toISOString(),
      });
    }
  });
});

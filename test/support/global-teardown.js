const { Client } = require('pg');

// Drops the databases this run created (a crashed file may have left its own behind) and this run's
// template; never another run's.
module.exports = async function globalTeardown() {
  const postgres = globalThis.__EMBEDDED_POSTGRES__;
  if (postgres) {
    await postgres.stop();
    return;
  }
  const client = new Client({ connectionString: process.env.DATABASE_URL });
  await client.connect();
  try {
    const { rows } = await client.query('SELECT datname FROM pg_database WHERE datname LIKE $1 OR datname LIKE $2', [
      `billing\\_test\\_${process.env.TEST_RUN_ID}\\_%`,
      `billing\\_template\\_${process.env.TEST_RUN_ID}\\_%`,
    ]);
    for (const { datname } of rows) await client.query(`DROP DATABASE IF EXISTS "${datname}" WITH (FORCE)`);
  } finally {
    await client.end();
  }
};

const { Client } = require('pg');
const { databaseNodes, dropEverywhere } = require('./database-nodes');

// Drops the databases this run created (a crashed file may have left its own behind) and this run's
// template, on every node (a Citus coordinator's workers too); never another run's.
module.exports = async function globalTeardown() {
  const postgres = globalThis.__EMBEDDED_POSTGRES__;
  if (postgres) {
    await postgres.stop();
    return;
  }
  const nodes = await databaseNodes(process.env.DATABASE_URL);
  const client = new Client({ connectionString: process.env.DATABASE_URL });
  await client.connect();
  let names;
  try {
    const { rows } = await client.query('SELECT datname FROM pg_database WHERE datname LIKE $1 OR datname LIKE $2', [
      `billing\\_test\\_${process.env.TEST_RUN_ID}\\_%`,
      `billing\\_template\\_${process.env.TEST_RUN_ID}\\_%`,
    ]);
    names = rows.map((row) => row.datname);
  } finally {
    await client.end();
  }
  for (const name of names) await dropEverywhere(nodes, name);
};

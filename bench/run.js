// `npm run bench`: every benchmark in turn; each prints its table and writes bench/results/.
const { spawnSync } = require('node:child_process');
const { join } = require('node:path');

const BENCHMARKS = [
  'startup.js',
  'auth.js',
  'wallets.js',
  'wallet-scale.js',
  'verifications.js',
  'documents.js',
  'catalog.js',
  'plan-publish.js',
  'plans.js',
  'plan-migration.js',
  'noisy-neighbour.js',
  'citus.js',
];

let failed = false;
for (const benchmark of BENCHMARKS) {
  const result = spawnSync(process.execPath, [join(__dirname, benchmark)], { stdio: 'inherit', env: process.env });
  if (result.status !== 0) failed = true;
}
process.exit(failed ? 1 : 0);

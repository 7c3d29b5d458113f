// `npm run build`: compiles with `nest build` only when the sources changed since the last build,
// so a second `npm start` starts at once. The fingerprint of what the build reads (sources,
// assets, configuration, the locked dependencies) is kept beside the output, in dist/.
const { createHash } = require('node:crypto');
const { spawnSync } = require('node:child_process');
const { existsSync, readdirSync, readFileSync, writeFileSync } = require('node:fs');
const { join, relative } = require('node:path');

const SOURCE_DIRS = ['apps', 'libs', 'migrations'];
const SOURCE_FILES = ['ormconfig.ts', 'tsconfig.json', 'nest-cli.json', 'package-lock.json'];
/** The applications of nest-cli.json, each built to dist/apps/<name>, and the file each starts from. */
const APPS = ['api', 'worker'];
const ENTRIES = APPS.map((app) => `dist/apps/${app}/apps/${app}/src/main.js`);
const FINGERPRINT = 'dist/.source-fingerprint';

/** Files under a directory, tests left out (the build excludes them), in a stable order. */
function filesUnder(root, dir) {
  const absolute = join(root, dir);
  if (!existsSync(absolute)) return [];
  return readdirSync(absolute, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && !entry.name.endsWith('.spec.ts'))
    .map((entry) => relative(root, join(entry.parentPath, entry.name)));
}

function sourceFingerprint(root) {
  const files = [
    ...SOURCE_DIRS.flatMap((dir) => filesUnder(root, dir)),
    ...SOURCE_FILES.filter((file) => existsSync(join(root, file))),
  ];
  const hash = createHash('sha256');
  for (const file of files.sort())
    hash
      .update(`${file}\0`)
      .update(readFileSync(join(root, file)))
      .update('\0');
  return hash.digest('hex');
}

/** Whether dist/ is missing or was built from other sources than these. */
function isStale(root, fingerprint = sourceFingerprint(root)) {
  const built = join(root, FINGERPRINT);
  return (
    ENTRIES.some((entry) => !existsSync(join(root, entry))) || !existsSync(built) || readFileSync(built, 'utf8') !== fingerprint
  );
}

function main() {
  const root = join(__dirname, '..');
  const fingerprint = sourceFingerprint(root);
  if (!isStale(root, fingerprint)) return;
  process.stdout.write('Building (the sources changed since the last build; about 30 s)…\n');
  for (const app of APPS) {
    const build = spawnSync(process.execPath, [join(root, 'node_modules/@nestjs/cli/bin/nest.js'), 'build', app], {
      cwd: root,
      stdio: 'inherit',
    });
    if (build.status !== 0) process.exit(build.status ?? 1);
  }
  writeFileSync(join(root, FINGERPRINT), fingerprint);
}

if (require.main === module) main();

module.exports = { sourceFingerprint, isStale, FINGERPRINT, ENTRIES };

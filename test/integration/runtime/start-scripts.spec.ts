import { ChildProcess, spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const load = createRequire(__filename);
const build = load('../../../scripts/build.js') as {
  sourceFingerprint(root: string): string;
  isStale(root: string): boolean;
  FINGERPRINT: string;
  ENTRIES: string[];
};
const running = load('../../../scripts/running-server.js') as {
  whyNotStart(env: Record<string, string | undefined>, root: string): Promise<string | undefined>;
};

describe('npm start builds only when the sources changed (scripts/build.js)', () => {
  let root: string;
  const write = (file: string, text: string) => {
    mkdirSync(join(root, file, '..'), { recursive: true });
    writeFileSync(join(root, file), text);
  };

  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'billing-build-'));
    write('apps/api/src/main.ts', 'console.log(1);');
    write('libs/documents/assets/fonts/a.ttf', 'font');
    write('package-lock.json', '{}');
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  function markBuilt(): void {
    for (const entry of build.ENTRIES) write(entry, 'built');
    write(build.FINGERPRINT, build.sourceFingerprint(root));
  }

  it('is stale without a build, and fresh once built from these sources', () => {
    expect(build.isStale(root)).toBe(true);
    markBuilt();
    expect(build.isStale(root)).toBe(false);
  });

  it('is stale again when a source, an asset or the lock file changes, or the output is gone', () => {
    for (const [file, text] of [
      ['apps/api/src/main.ts', 'console.log(2);'],
      ['libs/documents/assets/fonts/a.ttf', 'other font'],
      ['package-lock.json', '{"lockfileVersion": 3}'],
      ['migrations/1-new.ts', 'export {};'],
    ]) {
      markBuilt();
      write(file, text);
      expect(build.isStale(root)).toBe(true);
    }
    markBuilt();
    rmSync(join(root, 'dist/apps/api/apps/api/src/main.js'));
    expect(build.isStale(root)).toBe(true);
  });

  it('ignores tests, which the build leaves out', () => {
    markBuilt();
    write('apps/api/src/main.spec.ts', 'it("x", () => undefined);');
    expect(build.isStale(root)).toBe(false);
  });
});

describe('a second npm start says at once that one runs (scripts/running-server.js)', () => {
  let root: string;
  let server: ChildProcess | undefined;
  let blocker: Server | undefined;

  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'billing-start-'));
    mkdirSync(join(root, '.data'));
  });
  afterEach(async () => {
    server?.kill('SIGKILL');
    await new Promise<void>((done) => (blocker ? blocker.close(() => done()) : done()));
    server = blocker = undefined;
    rmSync(root, { recursive: true, force: true });
  });

  async function freePort(): Promise<number> {
    const probe = createServer();
    await new Promise<void>((done) => probe.listen(0, '127.0.0.1', done));
    const { port } = probe.address() as { port: number };
    await new Promise<void>((done) => probe.close(() => done()));
    return port;
  }

  it('names the pid and address of the server running on this DATA_DIR', async () => {
    // A process whose command line is the server's (what ps shows for `node …/src/main.js`).
    server = spawn(process.execPath, ['-e', 'setInterval(() => undefined, 1000)', 'dist/apps/api/apps/api/src/main.js']);
    writeFileSync(join(root, '.data/server.pid'), `${server.pid} http://127.0.0.1:3000\n`);
    const reason = await running.whyNotStart({ PORT: String(await freePort()) }, root);
    expect(reason).toContain(`already runs from this directory (pid ${server.pid}, http://127.0.0.1:3000)`);
    expect(reason).toContain(`kill ${server.pid}`);
  });

  it('lets a start go on when the recorded server is gone or the pid now belongs to another program', async () => {
    writeFileSync(join(root, '.data/server.pid'), '999999999 http://127.0.0.1:3000\n');
    expect(await running.whyNotStart({ PORT: String(await freePort()) }, root)).toBeUndefined();
    writeFileSync(join(root, '.data/server.pid'), `${process.ppid} http://127.0.0.1:3000\n`);
    expect(await running.whyNotStart({ PORT: String(await freePort()) }, root)).toBeUndefined();
  });

  it('refuses when another program holds the port', async () => {
    blocker = createServer();
    await new Promise<void>((done) => blocker!.listen(0, '127.0.0.1', done));
    const { port } = blocker.address() as { port: number };
    expect(await running.whyNotStart({ PORT: String(port) }, root)).toBe(
      `Port ${port} on 127.0.0.1 is already in use by another program: stop it, or start with PORT=<another port> npm start.`,
    );
  });
});

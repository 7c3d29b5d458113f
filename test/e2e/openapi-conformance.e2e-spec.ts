import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateOpenApiDocument } from '../../apps/api/src/openapi-document';
import { createTestApp, TestApp } from '../support/test-app';

const ROOT = join(__dirname, '../..');
/** Committed, so `npm run typecheck` compiles the typed-client test from a fresh clone; regenerate with `npm run openapi:client`. */
const GENERATED_TYPES = join(ROOT, 'test/support/generated/openapi.d.ts');
const OPENAPI_TYPESCRIPT = join(ROOT, 'node_modules/openapi-typescript/bin/cli.js');

/**
 * The document cannot drift from the server: what `npm run openapi` writes offline (and Spectral
 * lints) is what the running app serves, and the committed client types are what
 * openapi-typescript makes of it, byte for byte.
 */
describe('OpenAPI conformance: offline document and generated client types agree with the live server', () => {
  let t: TestApp;
  let live: Record<string, unknown>;

  beforeAll(async () => {
    t = await createTestApp();
    live = (await t.http.get('/openapi.json').expect(200)).body;
  });
  afterAll(() => t.close());

  it('npm run openapi (no database, no server) writes the document GET /openapi.json serves', async () => {
    const offline = JSON.parse(JSON.stringify(await generateOpenApiDocument()));
    expect(offline).toEqual(live);
  });

  it('test/support/generated/openapi.d.ts is openapi-typescript of the live document (else run npm run openapi:client)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'openapi-client-'));
    try {
      writeFileSync(join(dir, 'openapi.json'), `${JSON.stringify(live, null, 2)}\n`);
      execFileSync(process.execPath, [OPENAPI_TYPESCRIPT, join(dir, 'openapi.json'), '--output', join(dir, 'openapi.d.ts')], {
        stdio: 'pipe',
      });
      const expected = readFileSync(join(dir, 'openapi.d.ts'), 'utf8');
      const committed = readFileSync(GENERATED_TYPES, 'utf8');
      // Not toEqual on ~1 MB of text: name the first differing line instead of printing both files.
      const expectedLines = expected.split('\n');
      const committedLines = committed.split('\n');
      const differing = expectedLines.findIndex((line, index) => line !== committedLines[index]);
      const first = differing === -1 && expectedLines.length !== committedLines.length ? expectedLines.length : differing;
      const stale =
        first === -1
          ? undefined
          : `line ${first + 1}: committed ${JSON.stringify(committedLines[first])}, generated ${JSON.stringify(expectedLines[first])}`;
      expect({ stale, fix: 'npm run openapi:client' }).toEqual({ stale: undefined, fix: 'npm run openapi:client' });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

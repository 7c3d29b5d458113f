import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

const ROOT = join(__dirname, '../../../../..');
const SOURCES = ['libs', 'apps'];

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : sources(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.spec.ts') ? [path] : [];
  });
}

const FILES = SOURCES.flatMap((dir) => sources(join(ROOT, dir))).map((path) => ({
  file: relative(ROOT, path),
  text: readFileSync(path, 'utf8'),
}));
/** The cache (which defines forget), the payloads' spelling, and the one place that uses both. */
const OWNERS = [
  'authentication/credential-cache.ts',
  'authentication/identity-changes.ts',
  'authentication/credential-changes.ts',
];
const count = (text: string, pattern: RegExp) => (text.match(new RegExp(pattern.source, 'g')) ?? []).length;

/**
 * The credential change (evict from this instance, NOTIFY every other) has one place,
 * CredentialChanges: a write that changes a key or a session without it leaves the old grant
 * cached for up to a minute on every instance, and no request-level suite notices at once.
 */
describe('credential changes go through CredentialChanges', () => {
  it('is the only code that evicts a credential or announces a key or session change', () => {
    const offenders = FILES.filter(({ file, text }) => {
      if (OWNERS.some((owner) => file.endsWith(owner))) return false;
      // Evicting, naming the change, or spelling its NOTIFY payload by hand.
      return /\.forget\(|changeOf\.(apiKey|session)\(|`(api_key|session):\$\{|['"](api_key|session):['"]\s*\+/.test(text);
    }).map(({ file }) => file);
    expect(offenders).toEqual([]);
  });

  it('follows every save of an API key and every write of a session’s revocation', () => {
    const checked = FILES.filter(({ text }) => /\bkeys\.save\(|UPDATE sessions\b/.test(text));
    expect(checked.length).toBeGreaterThanOrEqual(3);
    const missing = checked.flatMap(({ file, text }) => {
      const keySaves = count(text, /\bkeys\.save\(/);
      const sessionWrites = count(text, /UPDATE sessions\b/);
      const gaps: string[] = [];
      if (count(text, /\.apiKeyChanged\(/) < keySaves) gaps.push(`${file}: ${keySaves} key saves, fewer apiKeyChanged calls`);
      if (count(text, /\.sessionChanged\(/) < sessionWrites)
        gaps.push(`${file}: ${sessionWrites} session writes, fewer sessionChanged calls`);
      return gaps;
    });
    expect(missing).toEqual([]);
  });
});

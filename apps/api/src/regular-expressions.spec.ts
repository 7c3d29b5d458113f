import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { checkSync } from 'recheck';
import ts from 'typescript';

/**
 * Every regular expression the code can apply to client text runs in linear time (issue 19: one
 * backtracking pattern on an e-mail body froze the event loop for hours). The sources of libs/
 * and apps/ are parsed, not listed by hand, so a pattern added later is checked without anyone
 * remembering to: regex literals, `RegExp(…)` calls, and the `pattern` strings of JSON Schemas
 * (Ajv compiles them with the `u` flag). recheck must find each one `safe`. A RegExp built from
 * something other than a literal cannot be checked here, so it is refused.
 */
const ROOT = join(__dirname, '..', '..', '..');

interface Found {
  where: string;
  source: string;
  flags: string;
}

function sourceFiles(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : sourceFiles(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.spec.ts') && !entry.name.endsWith('.d.ts') ? [path] : [];
  });
}

function literalText(node: ts.Node | undefined): string | undefined {
  return node && (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) ? node.text : undefined;
}

function patternsOf(path: string): { found: Found[]; unchecked: string[] } {
  const file = ts.createSourceFile(path, readFileSync(path, 'utf8'), ts.ScriptTarget.Latest, true);
  const found: Found[] = [];
  const unchecked: string[] = [];
  const where = (node: ts.Node) => `${relative(ROOT, path)}:${file.getLineAndCharacterOfPosition(node.getStart()).line + 1}`;
  const visit = (node: ts.Node): void => {
    if (ts.isRegularExpressionLiteral(node)) {
      const text = node.getText();
      const end = text.lastIndexOf('/');
      found.push({ where: where(node), source: text.slice(1, end), flags: text.slice(end + 1) });
    } else if ((ts.isNewExpression(node) || ts.isCallExpression(node)) && node.expression.getText() === 'RegExp') {
      const [pattern, flags] = node.arguments ?? [];
      const source = literalText(pattern);
      if (source === undefined || (flags !== undefined && literalText(flags) === undefined)) unchecked.push(where(node));
      else found.push({ where: where(node), source, flags: literalText(flags) ?? '' });
    } else if (ts.isPropertyAssignment(node) && node.name.getText() === 'pattern') {
      const source = literalText(node.initializer);
      if (source !== undefined) found.push({ where: where(node), source, flags: 'u' });
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return { found, unchecked };
}

const scanned = ['libs', 'apps'].flatMap((directory) => sourceFiles(join(ROOT, directory))).map(patternsOf);
const patterns = scanned.flatMap(({ found }) => found);

describe('Regular expressions in the sources', () => {
  it('are all found (the scan reads the sources it should)', () => {
    expect(patterns.length).toBeGreaterThan(30);
    expect(patterns.map((pattern) => pattern.where)).toEqual(
      expect.arrayContaining([expect.stringMatching(/^libs\/shared-kernel\/src\/rfc3339\.ts:/)]),
    );
  });

  it('are literals, so that they can be checked', () => {
    expect(scanned.flatMap(({ unchecked }) => unchecked)).toEqual([]);
  });

  it.each(patterns.map((pattern) => [`${pattern.where} /${pattern.source}/${pattern.flags}`, pattern] as const))(
    'run in linear time: %s',
    (_label, { source, flags }) => {
      const diagnostics = checkSync(source, flags, { randomSeed: 19, timeout: 20_000 });
      expect(
        diagnostics.status === 'vulnerable' ? { status: 'vulnerable', attack: diagnostics.attack.pattern } : diagnostics.status,
      ).toBe('safe');
    },
    60_000,
  );
});

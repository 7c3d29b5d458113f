/**
 * The text on one line: each line break, with the white space around it, becomes one space. The
 * same as replacing the global pattern `\s*\n\s*` by a space, without that pattern's quadratic
 * backtracking over a long run of white space that holds no line break.
 */
export function oneLine(text: string): string {
  const lines = text.split('\n');
  if (lines.length === 1) return text;
  const last = lines.length - 1;
  const inner = lines.slice(1, last).map((line) => line.trim());
  return [lines[0].trimEnd(), ...inner.filter((line) => line !== ''), lines[last].trimStart()].join(' ');
}

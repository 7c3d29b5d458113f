/** One `{{ name }}` of a text: where it starts and ends, and the name inside without its surrounding white space. */
export interface Placeholder {
  start: number;
  end: number;
  name: string;
}

/**
 * The `{{ name }}` placeholders of a text, left to right, with the name free of braces: what
 * `/\{\{\s*([^{}]*?)\s*\}\}/g` found, scanned in one pass. That pattern backtracked over a run of
 * white space after `{{` (its two `\s*` and the lazy group share it), cubic in the run's length: a
 * 20,000-character body took hours and froze the event loop. Here each character is read at most
 * twice: a failed candidate stops at a brace, and the next candidate starts at that brace or later.
 */
export function placeholders(text: string): Placeholder[] {
  const found: Placeholder[] = [];
  let from = 0;
  for (let start = text.indexOf('{{', from); start >= 0; start = text.indexOf('{{', from)) {
    let cursor = start + 2;
    while (cursor < text.length && text[cursor] !== '{' && text[cursor] !== '}') cursor += 1;
    if (text.startsWith('}}', cursor)) {
      found.push({ start, end: cursor + 2, name: text.slice(start + 2, cursor).trim() });
      from = cursor + 2;
    } else {
      from = start + 1;
    }
  }
  return found;
}

/** The text with each placeholder replaced by what `replace` gives for its name. */
export function replacePlaceholders(text: string, replace: (name: string) => string): string {
  let result = '';
  let last = 0;
  for (const { start, end, name } of placeholders(text)) {
    result += text.slice(last, start) + replace(name);
    last = end;
  }
  return result + text.slice(last);
}

import { formulaSyntaxError } from './formula-errors';
import { FORMULA_LIMITS } from './limits';

export type Token =
  | { readonly type: 'number'; readonly text: string; readonly position: number }
  /** A bare name: `(letter | "_") (letter | digit | "_" | ".")*`; function names included. */
  | { readonly type: 'name'; readonly text: string; readonly position: number }
  /** A braced key; `text` is the key without its braces. */
  | { readonly type: 'key'; readonly text: string; readonly position: number }
  | { readonly type: '+' | '-' | '*' | '/' | '(' | ')' | ','; readonly position: number }
  | { readonly type: 'end'; readonly position: number };

const PUNCTUATION = new Set(['+', '-', '*', '/', '(', ')', ',']);

const isDigit = (ch: string): boolean => ch >= '0' && ch <= '9';
const isLetter = (ch: string): boolean => (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z');
const isNameStart = (ch: string): boolean => isLetter(ch) || ch === '_';
const isNamePart = (ch: string): boolean => isNameStart(ch) || isDigit(ch) || ch === '.';
const isKeyChar = (ch: string): boolean => isNamePart(ch) || ch === '-';
const isSpace = (ch: string): boolean => ch === ' ' || ch === '\t' || ch === '\n' || ch === '\r';

/** Splits a formula into tokens; the last one is always `end`. Throws FORMULA_SYNTAX_ERROR. */
export function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < text.length) {
    const ch = text[i];
    if (isSpace(ch)) {
      i += 1;
    } else if (isDigit(ch)) {
      const end = scanNumber(text, i);
      tokens.push({ type: 'number', text: text.slice(i, end), position: i });
      i = end;
    } else if (isNameStart(ch)) {
      let end = i + 1;
      while (end < text.length && isNamePart(text[end])) end += 1;
      checkKeyLength(end - i, i);
      tokens.push({ type: 'name', text: text.slice(i, end), position: i });
      i = end;
    } else if (ch === '{') {
      const end = scanBracedKey(text, i);
      tokens.push({ type: 'key', text: text.slice(i + 1, end), position: i });
      i = end + 1;
    } else if (PUNCTUATION.has(ch)) {
      tokens.push({ type: ch as '+' | '-' | '*' | '/' | '(' | ')' | ',', position: i });
      i += 1;
    } else if (ch === '.' && i + 1 < text.length && isNamePart(text[i + 1])) {
      throw needsBraces(text, i);
    } else {
      throw formulaSyntaxError(`Unexpected character ${JSON.stringify(ch)}`, i);
    }
  }
  tokens.push({ type: 'end', position: text.length });
  return tokens;
}

/** `digit+ ("." digit+)?`, bounded; a digit-led key written bare gets a hint to brace it. */
function scanNumber(text: string, start: number): number {
  let i = start;
  while (i < text.length && isDigit(text[i])) i += 1;
  const integerEnd = i;
  if (text[i] === '.') {
    if (i + 1 < text.length && isDigit(text[i + 1])) {
      i += 1;
      while (i < text.length && isDigit(text[i])) i += 1;
    } else if (i + 1 < text.length && isNamePart(text[i + 1])) {
      throw needsBraces(text, start);
    } else {
      throw formulaSyntaxError("A number needs digits after its '.'", i + 1);
    }
  }
  if (i < text.length && isNamePart(text[i])) throw needsBraces(text, start);
  const significant = text.slice(start, integerEnd).replace(/^0+/, '').length;
  if (significant > FORMULA_LIMITS.maxIntegerDigits) {
    throw formulaSyntaxError(`A number has at most ${FORMULA_LIMITS.maxIntegerDigits} digits before the point`, start, {
      reason: 'number_too_long',
    });
  }
  if (i - integerEnd - 1 > FORMULA_LIMITS.maxFractionDigits) {
    throw formulaSyntaxError(`A number has at most ${FORMULA_LIMITS.maxFractionDigits} digits after the point`, start, {
      reason: 'number_too_long',
    });
  }
  return i;
}

/** Returns the index of the closing brace. */
function scanBracedKey(text: string, open: number): number {
  let i = open + 1;
  while (i < text.length && text[i] !== '}') {
    if (!isKeyChar(text[i])) {
      if (isSpace(text[i]) || PUNCTUATION.has(text[i]) || text[i] === '{') {
        // Most likely a missing '}' rather than a bad character inside one.
        const close = text.indexOf('}', i);
        if (close < 0) throw formulaSyntaxError("Unclosed '{': a braced key ends with '}'", open);
      }
      throw formulaSyntaxError(
        `Unexpected character ${JSON.stringify(text[i])} in a braced key: a key holds only letters, digits, '.', '_' and '-'`,
        i,
      );
    }
    i += 1;
  }
  if (i >= text.length) throw formulaSyntaxError("Unclosed '{': a braced key ends with '}'", open);
  if (i === open + 1) throw formulaSyntaxError("Empty braces: write a key between '{' and '}'", open);
  checkKeyLength(i - open - 1, open);
  return i;
}

function checkKeyLength(length: number, position: number): void {
  if (length > FORMULA_LIMITS.maxKeyLength) {
    throw formulaSyntaxError(`A key has at most ${FORMULA_LIMITS.maxKeyLength} characters`, position, {
      reason: 'key_too_long',
    });
  }
}

function needsBraces(text: string, start: number): Error {
  let end = start;
  while (end < text.length && isNamePart(text[end])) end += 1;
  const written = text.slice(start, end);
  if (/^\.\d+$/.test(written)) return formulaSyntaxError(`A number starts with a digit: write 0${written}`, start);
  const hint = written.length <= FORMULA_LIMITS.maxKeyLength ? `: {${written}}` : '';
  return formulaSyntaxError(`A key that starts with a digit or a dot goes in braces${hint}`, start);
}

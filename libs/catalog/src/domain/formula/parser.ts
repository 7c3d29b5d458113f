import { BinaryOperator, FormulaNode, FUNCTION_NAMES, isFunctionName } from './ast';
import { formulaSyntaxError } from './formula-errors';
import { Token, tokenize } from './lexer';
import { FORMULA_LIMITS } from './limits';

/**
 * Parses a formula (catalog model §3.6) into its AST:
 *
 *     expr  := term (("+" | "-") term)*        term := unary (("*" | "/") unary)*
 *     unary := "-" unary | atom                atom := number | ref | call | "(" expr ")"
 *     call  := fn "(" expr ("," expr)* ")"     ref  := name | "{" key "}"
 *
 * Throws FORMULA_SYNTAX_ERROR with `details.position`, the 0-based offset of the offending
 * character. Limits: 1,000 characters, 200 nodes; min/max take 2–16 arguments and
 * round/ceil/floor an optional `places` written as an integer literal 0–12.
 */
export function parseFormula(text: string): FormulaNode {
  if (typeof text !== 'string') throw formulaSyntaxError('A formula is a string', 0);
  if (text.length > FORMULA_LIMITS.maxLength) {
    throw formulaSyntaxError(`A formula has at most ${FORMULA_LIMITS.maxLength} characters`, FORMULA_LIMITS.maxLength, {
      reason: 'too_long',
    });
  }
  return new Parser(tokenize(text)).parseFormula();
}

class Parser {
  private index = 0;
  private nodes = 0;

  constructor(private readonly tokens: Token[]) {}

  parseFormula(): FormulaNode {
    const root = this.parseExpr();
    const rest = this.peek();
    if (rest.type === ')') throw formulaSyntaxError("Unmatched ')'", rest.position);
    if (rest.type !== 'end') {
      throw formulaSyntaxError(`Unexpected ${describe(rest)}: expected an operator or the end of the formula`, rest.position);
    }
    return root;
  }

  private parseExpr(): FormulaNode {
    let node = this.parseTerm();
    for (let token = this.peek(); token.type === '+' || token.type === '-'; token = this.peek()) {
      this.index += 1;
      node = this.binary(token, node, this.parseTerm());
    }
    return node;
  }

  private parseTerm(): FormulaNode {
    let node = this.parseUnary();
    for (let token = this.peek(); token.type === '*' || token.type === '/'; token = this.peek()) {
      this.index += 1;
      node = this.binary(token, node, this.parseUnary());
    }
    return node;
  }

  private parseUnary(): FormulaNode {
    const token = this.peek();
    if (token.type !== '-') return this.parseAtom();
    this.index += 1;
    this.count(token);
    return { type: 'negate', operand: this.parseUnary() };
  }

  private parseAtom(): FormulaNode {
    const token = this.next();
    switch (token.type) {
      case 'number':
        this.count(token);
        return { type: 'number', text: token.text };
      case 'key':
        this.count(token);
        return { type: 'ref', key: token.text };
      case 'name':
        if (isFunctionName(token.text)) return this.parseCall(token);
        if (this.peek().type === '(') {
          throw formulaSyntaxError(
            `'${token.text}' is not a function; the functions are ${FUNCTION_NAMES.join(', ')}`,
            token.position,
          );
        }
        this.count(token);
        return { type: 'ref', key: token.text };
      case '(': {
        const inner = this.parseExpr();
        this.expectClose(token, 'the');
        return inner;
      }
      default:
        throw formulaSyntaxError(`Expected a number, a key, a function or '(' but found ${describe(token)}`, token.position);
    }
  }

  private parseCall(name: Token & { type: 'name' }): FormulaNode {
    const fn = name.text;
    const open = this.peek();
    if (open.type !== '(') {
      throw formulaSyntaxError(`'${fn}' is a function name: write {${fn}} to reference a key named '${fn}'`, name.position);
    }
    this.index += 1;
    this.count(name);
    const first = this.parseExpr();
    if (fn === 'min' || fn === 'max') {
      const args = [first];
      for (let token = this.peek(); token.type === ','; token = this.peek()) {
        if (args.length === FORMULA_LIMITS.maxFunctionArgs) {
          throw formulaSyntaxError(`${fn} takes at most ${FORMULA_LIMITS.maxFunctionArgs} arguments`, token.position);
        }
        this.index += 1;
        args.push(this.parseExpr());
      }
      const close = this.expectClose(name, `'${fn}'`);
      if (args.length < FORMULA_LIMITS.minFunctionArgs) {
        throw formulaSyntaxError(
          `${fn} takes ${FORMULA_LIMITS.minFunctionArgs} to ${FORMULA_LIMITS.maxFunctionArgs} arguments`,
          close.position,
        );
      }
      return { type: 'extremum', fn, args };
    }
    const rounding = fn as 'round' | 'ceil' | 'floor';
    let places: number | null = null;
    if (this.peek().type === ',') {
      this.index += 1;
      places = this.parsePlaces(rounding);
    }
    if (this.peek().type === ',') {
      throw formulaSyntaxError(`${rounding} takes at most 2 arguments: ${rounding}(x, places)`, this.peek().position);
    }
    this.expectClose(name, `'${rounding}'`);
    return { type: 'rounding', fn: rounding, arg: first, places };
  }

  /** The second argument of round/ceil/floor: an integer literal 0–12, never an expression. */
  private parsePlaces(fn: string): number {
    const token = this.next();
    const after = this.peek();
    const literal = token.type === 'number' && /^\d+$/.test(token.text) ? Number(token.text) : undefined;
    if (literal === undefined || literal > FORMULA_LIMITS.maxPlaces || (after.type !== ')' && after.type !== ',')) {
      throw formulaSyntaxError(
        `The places of ${fn} must be an integer literal from 0 to ${FORMULA_LIMITS.maxPlaces}`,
        token.position,
      );
    }
    return literal;
  }

  private expectClose(opener: Token, what: string): Token {
    const token = this.next();
    if (token.type !== ')') {
      const expected = what === 'the' ? "')'" : "',' or ')'";
      throw formulaSyntaxError(
        `Expected ${expected} to close ${what === 'the' ? "the '('" : what} at position ${opener.position}, found ${describe(token)}`,
        token.position,
      );
    }
    return token;
  }

  private binary(token: Token, left: FormulaNode, right: FormulaNode): FormulaNode {
    this.count(token);
    return { type: 'binary', op: token.type as BinaryOperator, left, right };
  }

  /** Counts a node about to be made at `token`; the 201st is refused where it starts. */
  private count(token: Token): void {
    this.nodes += 1;
    if (this.nodes > FORMULA_LIMITS.maxNodes) {
      throw formulaSyntaxError(
        `A formula has at most ${FORMULA_LIMITS.maxNodes} numbers, keys, operators and calls`,
        token.position,
        {
          reason: 'too_many_nodes',
        },
      );
    }
  }

  private peek(): Token {
    return this.tokens[this.index];
  }

  private next(): Token {
    const token = this.tokens[this.index];
    if (token.type !== 'end') this.index += 1;
    return token;
  }
}

function describe(token: Token): string {
  switch (token.type) {
    case 'end':
      return 'the end of the formula';
    case 'number':
      return `the number ${token.text}`;
    case 'name':
      return `'${token.text}'`;
    case 'key':
      return `'{${token.text}}'`;
    default:
      return `'${token.type}'`;
  }
}

import Big from 'big.js';
import { DomainError } from '@app/shared-kernel';
import { FormulaNode, formulaReferences } from './ast';
import { dependencyOrder, findCycle, longestPath } from './dependency-graph';
import { explainNode, evaluateNode, FormulaExplainNode } from './evaluator';
import { bindingValue, finishResult, renderDecimal } from './formula-decimal';
import {
  FORMULA_SYNTAX_ERROR,
  FormulaSyntaxReason,
  formulaCycle,
  formulaSyntaxError,
  formulaUnknownKey,
  referenceTooDeep,
  tooManyKeys,
} from './formula-errors';
import { FormulaBinding, FormulaScope } from './formula-scope';
import { FORMULA_LIMITS } from './limits';
import { parseFormula } from './parser';
import { printKey } from './printer';

/** One key of an evaluation's closure, as it was resolved and evaluated. */
export interface ResolvedFormulaKey<M = unknown> {
  readonly key: string;
  /** The binding's id, or the key. */
  readonly id: string;
  /** Plain decimal; an expression's result is rounded to 12 fraction digits. */
  readonly value: string;
  /** The expression, or null for a value. */
  readonly expression: string | null;
  /** The keys the expression references directly, in order of first appearance. */
  readonly references: readonly string[];
  readonly metadata?: M;
}

interface ClosureNode<M> {
  readonly id: string;
  readonly key: string;
  readonly binding: FormulaBinding<M>;
  readonly ast: FormulaNode | null;
  /** Referenced key → the id it resolved to. */
  readonly edges: Map<string, string>;
  value?: Big;
}

/** The id of the anonymous root expression; never a key (keys hold no NUL). */
const ROOT = '\u0000root';

/**
 * One evaluation: resolves the keys reachable from its roots through the scope (each key
 * once), refuses unknown keys, cycles, too many keys and too deep references, then evaluates
 * every key once, dependencies first.
 *
 * Refusals, in this order: FORMULA_SYNTAX_ERROR (a stored expression; `details.key`), too
 * many keys, FORMULA_UNKNOWN_KEY, FORMULA_CYCLE, depth, then evaluation errors.
 */
export class FormulaClosure<M = unknown> {
  private readonly nodes = new Map<string, ClosureNode<M>>();
  private readonly unknown = new Map<string, FormulaScope<M>>();
  private readonly rootEdges = new Map<string, string>();
  private readonly rootIds: string[] = [];

  /**
   * @param override a key standing for a new binding wherever its identity is looked up,
   *   nested scopes included: the expression being saved, checked against the stored ones.
   */
  constructor(
    private readonly scope: FormulaScope<M>,
    private readonly roots: { expression?: FormulaNode; keys?: readonly string[] },
    private readonly override?: { key: string; binding: FormulaBinding<M> },
  ) {
    if (roots.expression) {
      this.rootIds.push(ROOT);
      for (const key of formulaReferences(roots.expression)) {
        const id = this.resolve(key, scope);
        if (id !== undefined) this.rootEdges.set(key, id);
      }
    }
    for (const key of roots.keys ?? []) {
      const id = this.resolve(key, scope);
      if (id !== undefined && !this.rootIds.includes(id)) this.rootIds.push(id);
    }
    this.check();
    for (const id of dependencyOrder(this.rootIds, this.successors)) {
      if (id !== ROOT) this.evaluateKey(this.nodes.get(id)!);
    }
  }

  /** The root expression's result, rounded to 12 digits, with its explain tree on request. */
  evaluateRoot(explain: boolean): { value: Big; explain?: FormulaExplainNode } {
    const ast = this.roots.expression;
    if (!ast) throw new Error('This closure has no root expression.');
    const values = (key: string): Big => this.nodes.get(this.rootEdges.get(key)!)!.value!;
    if (!explain) return { value: finishResult(evaluateNode(ast, values)) };
    const explained = explainNode(ast, values);
    return { value: finishResult(explained.value), explain: explained.explain };
  }

  valueOf(key: string): Big {
    const id = this.idOf(key, this.scope);
    return this.nodes.get(id)!.value!;
  }

  /** Every key of the closure, in order of first appearance. */
  resolvedKeys(): ResolvedFormulaKey<M>[] {
    return [...this.nodes.values()].map((node) => {
      const resolved: ResolvedFormulaKey<M> = {
        key: node.key,
        id: node.id,
        value: renderDecimal(node.value!),
        expression: node.binding.kind === 'expression' ? node.binding.expression : null,
        references: node.ast ? formulaReferences(node.ast) : [],
      };
      return node.binding.metadata === undefined ? resolved : { ...resolved, metadata: node.binding.metadata };
    });
  }

  private readonly successors = (id: string): readonly string[] =>
    id === ROOT ? [...this.rootEdges.values()] : [...this.nodes.get(id)!.edges.values()];

  private lookup(key: string, scope: FormulaScope<M>): FormulaBinding<M> | undefined {
    const override = this.override;
    if (override && scope === this.scope && key === override.key) return override.binding;
    const binding = scope.lookup(key);
    if (override && binding && (binding.id ?? key) === (override.binding.id ?? override.key)) return override.binding;
    return binding;
  }

  private idOf(key: string, scope: FormulaScope<M>): string {
    const binding = this.lookup(key, scope)!;
    return binding.id ?? key;
  }

  /** Depth-first, so the nodes map keeps the order of first appearance. */
  private resolve(key: string, scope: FormulaScope<M>): string | undefined {
    const binding = this.lookup(key, scope);
    if (binding === undefined) {
      if (!this.unknown.has(key)) this.unknown.set(key, scope);
      return undefined;
    }
    const id = binding.id ?? key;
    if (this.nodes.has(id)) return id;
    if (this.nodes.size >= FORMULA_LIMITS.maxKeys) throw tooManyKeys();
    const ast = binding.kind === 'expression' ? (binding.ast ?? parseStored(binding.expression, key)) : null;
    const node: ClosureNode<M> = { id, key, binding, ast, edges: new Map() };
    this.nodes.set(id, node);
    if (ast && binding.kind === 'expression') {
      const inner = binding.scope ?? scope;
      for (const ref of formulaReferences(ast)) {
        const child = this.resolve(ref, inner);
        if (child !== undefined) node.edges.set(ref, child);
      }
    }
    return id;
  }

  private check(): void {
    if (this.unknown.size > 0) {
      const suggestions: Record<string, string> = {};
      for (const [key, scope] of this.unknown) {
        const suggestion = suggestSubtraction(key, (part) => this.lookup(part, scope) !== undefined);
        if (suggestion) suggestions[key] = suggestion;
      }
      throw formulaUnknownKey([...this.unknown.keys()], suggestions);
    }
    const cycle = findCycle(this.rootIds, this.successors);
    if (cycle) throw formulaCycle(cycle.map((id) => this.nodes.get(id)!.key));
    const longest = longestPath(this.rootIds, this.successors);
    const steps = longest.length - 1;
    if (steps > FORMULA_LIMITS.maxDepth) {
      throw referenceTooDeep(longest.filter((id) => id !== ROOT).map((id) => this.nodes.get(id)!.key));
    }
  }

  private evaluateKey(node: ClosureNode<M>): void {
    if (node.binding.kind === 'value') {
      node.value = bindingValue(node.binding.value, node.key);
      return;
    }
    const values = (key: string): Big => this.nodes.get(node.edges.get(key)!)!.value!;
    node.value = finishResult(evaluateNode(node.ast!, values, node.key), node.key);
  }
}

/** A stored expression that no longer parses: its syntax error names the key. */
function parseStored(expression: string, key: string): FormulaNode {
  try {
    return parseFormula(expression);
  } catch (error) {
    if (error instanceof DomainError && error.code === FORMULA_SYNTAX_ERROR) {
      const position = (error.details?.position as number | undefined) ?? 0;
      const message = error.message.replace(/ \(at position \d+\)$/, '');
      const reason = error.details?.reason as FormulaSyntaxReason | undefined;
      throw formulaSyntaxError(message, position, { reason, key });
    }
    throw error;
  }
}

/**
 * The model's hint for an unknown braced key such as `{fee-tax}` whose parts are known keys:
 * the author meant a subtraction, `fee - tax`. Every '-'-separated part known → all of them
 * subtracted; else the first split into two known halves.
 */
export function suggestSubtraction(key: string, known: (key: string) => boolean): string | undefined {
  if (!key.includes('-')) return undefined;
  const parts = key.split('-');
  if (parts.length > 2 && parts.every((part) => part !== '' && known(part))) return parts.map(printKey).join(' - ');
  for (let at = key.indexOf('-'); at >= 0; at = key.indexOf('-', at + 1)) {
    const left = key.slice(0, at);
    const right = key.slice(at + 1);
    if (left !== '' && right !== '' && known(left) && known(right)) return `${printKey(left)} - ${printKey(right)}`;
  }
  return undefined;
}

import { join, relative, sep } from 'node:path';
import * as ts from 'typescript';

/**
 * Which error codes each route's code can throw, read from the sources with TypeScript's type
 * checker (no run, no database): from a controller method, every call, constructor and command or
 * query sent (`new XCommand(…)` leads to the `execute` of its @CommandHandler/@QueryHandler) is
 * followed through the application's own code (apps/, libs/), an abstract method (a repository
 * port) through every class that extends or implements its class; each error created on the way
 * adds its code: `<Context>Errors.CODE.create(…)` (the definition's `code`, a literal type; a
 * definition read from a constant table at a parameter, e.g. catalogNotFound's, the entries the
 * callers' arguments name), and `new DomainError(kind, code, …)` or a subclass's `super(kind, code,
 * …)` (a literal, or every literal of the argument's type).
 *
 * A `try` whose `catch` rethrows no DomainError swallows what its block throws (the refusal becomes
 * data, as a cost's unevaluable value or the publish check's findings do), one that rethrows all
 * but the codes its `instanceof DomainError && code…` guards name swallows those (a plan's
 * resolution turns PUBLISH_* into a failed release); any other lets every code of its block out.
 * A callback a function calls only inside such a `try` (the debit batch's refusalOr) is read so.
 *
 * An event's `read` (the GET query of a resource the transaction has just written) is not followed.
 *
 * It over-approximates (a branch that cannot run for this route still counts) and does not follow
 * what runs outside the call (guards, pipes, interceptors and filters: route-docs.ts documents
 * theirs from the route's metadata; event and job handlers: after the response).
 */
export interface RouteErrors {
  /** `<Controller>.<method>` */
  route: string;
  codes: Set<string>;
  /** Errors created whose code has no literal type (file:line), met on this route's paths. */
  unknown: Set<string>;
}

const ROOT = join(__dirname, '..', '..');
const HTTP_DECORATORS = new Set(['Get', 'Post', 'Put', 'Patch', 'Delete']);
const HANDLER_DECORATORS = new Set(['CommandHandler', 'QueryHandler']);

type Body = ts.FunctionLikeDeclaration;

/** A code this function throws that one of its parameters decides: the argument itself, or a constant table's entry at it. */
interface ParameterCode {
  index: number;
  table?: ts.ObjectLiteralExpression;
  place: string;
}

/**
 * Codes a `catch` keeps from getting out of its `try`: `prefix:PUBLISH_` (a code that starts so),
 * `code:X` (that code), `kind-not:not_found` (a code declared with another kind).
 */
type Swallowed = readonly string[];

interface Edges {
  codes: Set<string>;
  unknown: Set<string>;
  /** Each callee with what the `catch`es around the call swallow of it. */
  callees: { body: Body; swallowed: Swallowed }[];
  fromParameters: ParameterCode[];
}

/** Each declared code's kind, read from the `defineErrors({ CODE: { kind: '…' } })` calls. */
const kindOf = new Map<string, string>();

const swallows = (swallowed: Swallowed, code: string) =>
  swallowed.some((entry) => {
    const [what, value] = entry.split(':');
    if (what === 'prefix') return code.startsWith(value);
    if (what === 'kind-not') return kindOf.has(code) && kindOf.get(code) !== value;
    return what === 'code' && value === code;
  });

export function routeErrors(): RouteErrors[] {
  const config = ts.getParsedCommandLineOfConfigFile(
    join(ROOT, 'tsconfig.json'),
    {},
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (diagnostic) => {
        throw new Error(ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'));
      },
    },
  );
  if (!config) throw new Error('tsconfig.json could not be read');
  const own = (file: string) => /^(apps|libs)\//.test(relative(ROOT, file).split(sep).join('/'));
  const program = ts.createProgram({
    rootNames: config.fileNames.filter((file) => own(file) && !/\.spec\.ts$/.test(file)),
    options: { ...config.options, noEmit: true, incremental: false },
  });
  const checker = program.getTypeChecker();
  const sources = program.getSourceFiles().filter((file) => !file.isDeclarationFile && own(file.fileName));

  const classOf = (node: ts.Node): ts.ClassDeclaration | undefined => {
    let symbol = checker.getSymbolAtLocation(node);
    if (symbol && symbol.flags & ts.SymbolFlags.Alias) symbol = checker.getAliasedSymbol(symbol);
    return symbol?.declarations?.find(ts.isClassDeclaration);
  };
  const decoratorsOf = (node: ts.Node) =>
    (ts.canHaveDecorators(node) ? (ts.getDecorators(node) ?? []) : []).flatMap((decorator) =>
      ts.isCallExpression(decorator.expression) && ts.isIdentifier(decorator.expression.expression)
        ? [{ name: decorator.expression.expression.text, args: decorator.expression.arguments }]
        : [],
    );

  // Handlers by the message class they handle; classes by the classes they extend or implement.
  const handlerOf = new Map<ts.ClassDeclaration, Body>();
  const subclasses = new Map<ts.ClassDeclaration, ts.ClassDeclaration[]>();
  const classes: ts.ClassDeclaration[] = [];
  for (const source of sources) {
    const visit = (node: ts.Node): void => {
      if (ts.isCallExpression(node) && node.expression.getText() === 'defineErrors' && node.arguments[0]) {
        const specs = node.arguments[0];
        for (const property of ts.isObjectLiteralExpression(specs) ? specs.properties : []) {
          const spec = ts.isPropertyAssignment(property) ? property.initializer : undefined;
          const kind =
            spec && ts.isObjectLiteralExpression(spec)
              ? spec.properties.find((entry) => ts.isPropertyAssignment(entry) && entry.name.getText() === 'kind')
              : undefined;
          if (kind && ts.isPropertyAssignment(kind) && ts.isStringLiteral(kind.initializer))
            kindOf.set(property.name!.getText(), kind.initializer.text);
        }
      }
      if (ts.isClassDeclaration(node)) {
        classes.push(node);
        for (const { name, args } of decoratorsOf(node)) {
          const message = HANDLER_DECORATORS.has(name) && args[0] ? classOf(args[0]) : undefined;
          const execute = node.members.find(
            (member): member is ts.MethodDeclaration =>
              ts.isMethodDeclaration(member) && member.name.getText() === 'execute' && member.body !== undefined,
          );
          if (message && execute) handlerOf.set(message, execute);
        }
        for (const clause of node.heritageClauses ?? []) {
          for (const type of clause.types) {
            const base = classOf(type.expression);
            if (base) subclasses.set(base, [...(subclasses.get(base) ?? []), node]);
          }
        }
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  const domainError = classes.find(
    (node) => node.name?.text === 'DomainError' && /shared-kernel/.test(node.getSourceFile().fileName),
  );
  if (!domainError) throw new Error('DomainError not found in libs/shared-kernel');
  const descends = (node: ts.ClassDeclaration | undefined, base: ts.ClassDeclaration): boolean => {
    for (let current = node; current;) {
      if (current === base) return true;
      const parent = current.heritageClauses?.find((clause) => clause.token === ts.SyntaxKind.ExtendsKeyword)?.types[0];
      current = parent ? classOf(parent.expression) : undefined;
    }
    return false;
  };
  const implementations = (method: ts.MethodDeclaration | ts.MethodSignature): Body[] => {
    const owner = method.parent;
    if (!ts.isClassDeclaration(owner) && !ts.isInterfaceDeclaration(owner)) return [];
    const name = method.name.getText();
    const found: Body[] = [];
    const seen = new Set<ts.ClassDeclaration>();
    const down = (base: ts.ClassDeclaration | ts.InterfaceDeclaration) => {
      const below = ts.isClassDeclaration(base)
        ? (subclasses.get(base) ?? [])
        : classes.filter((node) =>
            node.heritageClauses?.some((clause) => clause.types.some((type) => type.expression.getText() === base.name.text)),
          );
      for (const sub of below) {
        if (seen.has(sub)) continue;
        seen.add(sub);
        for (const member of sub.members) {
          if ((ts.isMethodDeclaration(member) || ts.isPropertyDeclaration(member)) && member.name.getText() === name) {
            if (ts.isMethodDeclaration(member) && member.body) found.push(member);
            if (ts.isPropertyDeclaration(member) && member.initializer && ts.isArrowFunction(member.initializer))
              found.push(member.initializer);
          }
        }
        down(sub);
      }
    };
    down(owner);
    return found;
  };
  const codesOfType = (node: ts.Expression): string[] | undefined => {
    const type = checker.getTypeAtLocation(node);
    const parts = type.isUnion() ? type.types : [type];
    return parts.every((part) => part.isStringLiteral()) ? parts.map((part) => (part as ts.StringLiteralType).value) : undefined;
  };
  const where = (node: ts.Node) => {
    const source = node.getSourceFile();
    return `${relative(ROOT, source.fileName)}:${source.getLineAndCharacterOfPosition(node.getStart()).line + 1}`;
  };

  /** The codes of an error definition (`CatalogErrors.PLAN_BUSY`): the literal types of its `code`. */
  const definitionCodes = (node: ts.Expression): string[] | undefined => {
    const type = checker.getTypeAtLocation(node);
    const code = type.getProperty('code');
    if (!code || !type.getProperty('create') || !type.getProperty('kind')) return undefined;
    const codeType = checker.getTypeOfSymbolAtLocation(code, node);
    const parts = codeType.isUnion() ? codeType.types : [codeType];
    return parts.every((part) => part.isStringLiteral()) ? parts.map((part) => (part as ts.StringLiteralType).value) : undefined;
  };
  /** `definition.create(…)`: the definition expression, when `node` is such a call. */
  const createdFrom = (node: ts.CallExpression): ts.Expression | undefined => {
    const callee = node.expression;
    if (!ts.isPropertyAccessExpression(callee) || callee.name.text !== 'create') return undefined;
    const type = checker.getTypeAtLocation(callee.expression);
    return type.getProperty('code') && type.getProperty('kind') ? callee.expression : undefined;
  };

  /**
   * What a `catch` keeps its `try` from letting out: `'all'` when it cannot rethrow the caught error
   * (no `throw` mentions it, or an `if (error instanceof DomainError)` that returns or throws comes
   * first at the top of the block; an `if (!(error instanceof DomainError)) throw error;` rethrows no
   * DomainError), else the codes that `if (error instanceof DomainError && error.code.startsWith('P'))`
   * (or `… && error.code === 'C'`, `… && error.kind !== 'K'`) returning, or `if (!(error instanceof
   * DomainError) || !error.code.startsWith('P')) throw error;`, keep before the rethrow (none: every
   * code gets out). The
   * block's other throws are its own errors, read as any code is.
   */
  const catchSwallows = (clause: ts.CatchClause): 'all' | Swallowed => {
    const caught = clause.variableDeclaration?.name;
    if (!caught || !ts.isIdentifier(caught)) return 'all';
    const mentions = (node: ts.Node): boolean =>
      (ts.isIdentifier(node) && node.text === caught.text) ||
      ts.forEachChild(node, (child) => mentions(child) || undefined) === true;
    const rethrows = (node: ts.Node): boolean =>
      (ts.isThrowStatement(node) && mentions(node.expression)) ||
      (!ts.isFunctionLike(node) && ts.forEachChild(node, (child) => rethrows(child) || undefined) === true);
    const swallowed: string[] = [];
    for (const statement of clause.block.statements) {
      if (ts.isIfStatement(statement) && !statement.elseStatement && isNotDomainError(statement.expression, caught.text))
        continue;
      // `if (!(error instanceof DomainError) || !error.code.startsWith('P')) throw error;`: P's codes stay in.
      const condition = ts.isIfStatement(statement) && !statement.elseStatement ? statement.expression : undefined;
      if (
        condition &&
        ts.isBinaryExpression(condition) &&
        condition.operatorToken.kind === ts.SyntaxKind.BarBarToken &&
        isNotDomainError(condition.left, caught.text) &&
        ts.isPrefixUnaryExpression(condition.right) &&
        condition.right.operator === ts.SyntaxKind.ExclamationToken
      ) {
        const guard = testOf(condition.right.operand, caught.text);
        if (guard) {
          swallowed.push(guard);
          continue;
        }
      }
      if (
        ts.isIfStatement(statement) &&
        !statement.elseStatement &&
        !rethrows(statement.thenStatement) &&
        endsFlow(statement.thenStatement)
      ) {
        const guard = guardOf(statement.expression, caught.text);
        if (guard === 'all') return 'all';
        if (guard) {
          swallowed.push(guard);
          continue;
        }
      }
      if (rethrows(statement)) return swallowed;
    }
    return 'all';
  };
  /** `e instanceof DomainError` → 'all'; `… && e.code.startsWith('P')` → 'prefix:P'; `… && e.code === 'C'` → 'code:C'. */
  const guardOf = (condition: ts.Expression, name: string): string | undefined => {
    const isDomainError = (node: ts.Expression) =>
      ts.isBinaryExpression(node) &&
      node.operatorToken.kind === ts.SyntaxKind.InstanceOfKeyword &&
      node.left.getText() === name &&
      node.right.getText() === 'DomainError';
    if (isDomainError(condition)) return 'all';
    if (!ts.isBinaryExpression(condition) || condition.operatorToken.kind !== ts.SyntaxKind.AmpersandAmpersandToken)
      return undefined;
    if (!isDomainError(condition.left)) return undefined;
    return testOf(condition.right, name);
  };
  /** `e.code.startsWith('P')` → 'prefix:P'; `e.code === 'C'` → 'code:C'; `e.kind !== 'K'` → 'kind-not:K'. */
  const testOf = (test: ts.Expression, name: string): string | undefined => {
    if (
      ts.isCallExpression(test) &&
      test.expression.getText() === `${name}.code.startsWith` &&
      test.arguments.length === 1 &&
      ts.isStringLiteral(test.arguments[0])
    )
      return `prefix:${test.arguments[0].text}`;
    if (
      ts.isBinaryExpression(test) &&
      test.operatorToken.kind === ts.SyntaxKind.EqualsEqualsEqualsToken &&
      test.left.getText() === `${name}.code` &&
      ts.isStringLiteral(test.right)
    )
      return `code:${test.right.text}`;
    if (
      ts.isBinaryExpression(test) &&
      test.operatorToken.kind === ts.SyntaxKind.ExclamationEqualsEqualsToken &&
      test.left.getText() === `${name}.kind` &&
      ts.isStringLiteral(test.right)
    )
      return `kind-not:${test.right.text}`;
    return undefined;
  };
  const isNotDomainError = (condition: ts.Expression, name: string): boolean => {
    if (!ts.isPrefixUnaryExpression(condition) || condition.operator !== ts.SyntaxKind.ExclamationToken) return false;
    let inner: ts.Expression = condition.operand;
    while (ts.isParenthesizedExpression(inner)) inner = inner.expression;
    return (
      ts.isBinaryExpression(inner) &&
      inner.operatorToken.kind === ts.SyntaxKind.InstanceOfKeyword &&
      inner.left.getText() === name &&
      inner.right.getText() === 'DomainError'
    );
  };
  const endsFlow = (node: ts.Statement): boolean => {
    const last = ts.isBlock(node) ? node.statements[node.statements.length - 1] : node;
    return last !== undefined && (ts.isReturnStatement(last) || ts.isThrowStatement(last));
  };

  /**
   * An event's `read` (catalog's ReadEvent): the GET query that renders the event's payload, run by
   * CatalogEvents.publish in the transaction that has just written the resource it reads, so its
   * not-found refusal cannot be answered; it is not followed.
   */
  /**
   * What the callee's `catch`es swallow of a callback passed as its parameter `index`: the callee
   * calls it only inside `try`s (`refusalOr(() => …)`, whose catch returns the DomainError).
   */
  const callbackSwallows = (callee: ts.Declaration | undefined, index: number): 'all' | Swallowed => {
    if (!callee || !ts.isFunctionLike(callee) || !('body' in callee) || !callee.body) return [];
    const parameter = callee.parameters[index];
    if (!parameter || !ts.isIdentifier(parameter.name)) return [];
    const name = parameter.name.text;
    const sites: ('all' | Swallowed)[] = [];
    const find = (node: ts.Node): void => {
      if (ts.isCallExpression(node) && ts.isIdentifier(node.expression) && node.expression.text === name) {
        let all = false;
        const kept: string[] = [];
        for (let child: ts.Node = node, up = node.parent; up && child !== callee.body; child = up, up = up.parent) {
          if (ts.isTryStatement(up) && up.tryBlock === child && up.catchClause) {
            const around = catchSwallows(up.catchClause);
            if (around === 'all') all = true;
            else kept.push(...around);
          }
        }
        sites.push(all ? 'all' : kept);
      }
      ts.forEachChild(node, find);
    };
    find(callee.body);
    if (sites.length > 0 && sites.every((site) => site === 'all')) return 'all';
    return sites.length === 1 ? sites[0] : [];
  };

  const readsWhatWasWritten = (node: ts.Node): boolean => {
    if (!ts.isArrowFunction(node) && !ts.isFunctionExpression(node)) return false;
    const property = node.parent;
    if (!ts.isPropertyAssignment(property) || property.name.getText() !== 'read') return false;
    const type = checker.getContextualType(property.parent);
    const names = (type?.isUnion() ? type.types : type ? [type] : []).map((part) => part.getSymbol()?.getName());
    return names.includes('ReadEvent');
  };

  const edgesCache = new Map<Body, Edges>();
  /** The parameter of `body` that `node` names, if it names one. */
  const parameterIndex = (body: Body, node: ts.Expression): number | undefined => {
    if (!ts.isIdentifier(node)) return undefined;
    const declaration = checker.getSymbolAtLocation(node)?.valueDeclaration;
    const index = declaration && ts.isParameter(declaration) ? body.parameters.indexOf(declaration) : -1;
    return index >= 0 ? index : undefined;
  };
  /** The object literal a `const TABLE = { … }` names (through `as const` and `satisfies`). */
  const constantTable = (node: ts.Expression): ts.ObjectLiteralExpression | undefined => {
    const declaration = ts.isIdentifier(node) ? checker.getSymbolAtLocation(node)?.valueDeclaration : undefined;
    let initializer = declaration && ts.isVariableDeclaration(declaration) ? declaration.initializer : undefined;
    while (initializer && (ts.isAsExpression(initializer) || ts.isSatisfiesExpression(initializer)))
      initializer = initializer.expression;
    return initializer && ts.isObjectLiteralExpression(initializer) ? initializer : undefined;
  };
  const lookUp = (table: ts.ObjectLiteralExpression | undefined, keys: string[]): string[] | undefined => {
    if (!table) return keys;
    const values = keys.map((key) => {
      const property = table.properties.find(
        (candidate): candidate is ts.PropertyAssignment =>
          ts.isPropertyAssignment(candidate) && candidate.name.getText().replace(/['"]/g, '') === key,
      );
      if (!property) return undefined;
      if (ts.isStringLiteralLike(property.initializer)) return [property.initializer.text];
      return definitionCodes(property.initializer);
    });
    return values.every((value) => value !== undefined) ? values.flat() : undefined;
  };
  const edgesOf = (body: Body): Edges => {
    const cached = edgesCache.get(body);
    if (cached) return cached;
    const edges: Edges = { codes: new Set(), unknown: new Set(), callees: [], fromParameters: [] };
    edgesCache.set(body, edges);
    /** What the `catch`es around the node being read swallow. */
    let swallowed: Swallowed = [];
    const addCode = (code: string) => {
      if (!swallows(swallowed, code)) edges.codes.add(code);
    };
    const addCallee = (callee: Body) => edges.callees.push({ body: callee, swallowed });
    /** A code decided by `argument` (at `place`): its literal types, or the caller's own parameter. */
    const codeFrom = (argument: ts.Expression | undefined, table: ts.ObjectLiteralExpression | undefined, place: string) => {
      // A parameter first: the caller's argument is narrower than the parameter's declared type.
      const index = argument && parameterIndex(body, argument);
      if (index !== undefined) return edges.fromParameters.push({ index, table, place });
      const literal = argument && codesOfType(argument);
      const codes = literal && lookUp(table, literal);
      if (codes) codes.forEach(addCode);
      else edges.unknown.add(place);
    };
    const follow = (declaration: ts.Declaration | undefined, call?: ts.CallExpression | ts.NewExpression) => {
      if (!declaration || declaration.getSourceFile().isDeclarationFile || !own(declaration.getSourceFile().fileName)) return;
      if (ts.isFunctionLike(declaration) && 'body' in declaration && declaration.body) {
        const callee = declaration as Body;
        addCallee(callee);
        for (const { index, table, place } of callee === body ? [] : edgesOf(callee).fromParameters) {
          codeFrom(call?.arguments?.[index], table, place);
        }
      } else if (ts.isMethodDeclaration(declaration) || ts.isMethodSignature(declaration))
        implementations(declaration).forEach(addCallee);
    };
    const visit = (node: ts.Node): void => {
      // A `try` whose `catch` rethrows no DomainError lets none out: what its block throws becomes data.
      if (ts.isTryStatement(node) && node.catchClause) {
        const kept = catchSwallows(node.catchClause);
        if (kept !== 'all') {
          const outer = swallowed;
          swallowed = [...outer, ...kept];
          visit(node.tryBlock);
          swallowed = outer;
        }
        visit(node.catchClause);
        if (node.finallyBlock) visit(node.finallyBlock);
        return;
      }
      if (readsWhatWasWritten(node)) return;
      if (ts.isNewExpression(node)) {
        const created = classOf(node.expression);
        const constructor = created?.members.find(ts.isConstructorDeclaration);
        if (created && created !== domainError && constructor?.body && descends(created, domainError)) {
          follow(constructor, node);
        } else if (created && descends(created, domainError)) {
          const code = node.arguments?.[1];
          if (code && ts.isElementAccessExpression(code) && constantTable(code.expression)) {
            codeFrom(code.argumentExpression, constantTable(code.expression), where(node));
          } else codeFrom(code, undefined, where(node));
        } else if (created && handlerOf.has(created)) {
          addCallee(handlerOf.get(created)!);
        } else {
          follow(checker.getResolvedSignature(node)?.declaration, node);
        }
      } else if (ts.isCallExpression(node) && createdFrom(node)) {
        const definition = createdFrom(node)!;
        if (ts.isElementAccessExpression(definition) && constantTable(definition.expression)) {
          codeFrom(definition.argumentExpression, constantTable(definition.expression), where(node));
        } else {
          const codes = definitionCodes(definition);
          if (codes) codes.forEach(addCode);
          else edges.unknown.add(where(node));
        }
      } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.SuperKeyword) {
        // A DomainError subclass's constructor names its code in super(kind, code, …).
        const owner = ts.findAncestor(node, ts.isClassDeclaration);
        if (owner && owner !== domainError && descends(owner, domainError)) codeFrom(node.arguments[1], undefined, where(node));
        else follow(checker.getResolvedSignature(node)?.declaration, node);
      } else if (ts.isCallExpression(node)) {
        const callee = checker.getResolvedSignature(node)?.declaration;
        follow(callee, node);
        // A callback the callee calls inside a swallowing `try` only: its codes stay in as the callee's catch keeps them.
        visit(node.expression);
        node.arguments.forEach((argument, index) => {
          const kept = ts.isArrowFunction(argument) || ts.isFunctionExpression(argument) ? callbackSwallows(callee, index) : [];
          if (kept === 'all') return;
          const outer = swallowed;
          swallowed = [...outer, ...kept];
          visit(argument);
          swallowed = outer;
        });
        return;
      }
      ts.forEachChild(node, visit);
    };
    if (body.body) visit(body.body);
    return edges;
  };

  const routes: RouteErrors[] = [];
  for (const node of classes) {
    if (!decoratorsOf(node).some(({ name }) => name === 'Controller')) continue;
    for (const member of node.members) {
      if (!ts.isMethodDeclaration(member) || !member.body) continue;
      if (!decoratorsOf(member).some(({ name }) => HTTP_DECORATORS.has(name))) continue;
      const result: RouteErrors = { route: `${node.name?.text}.${member.name.getText()}`, codes: new Set(), unknown: new Set() };
      // A body is read once for each set of codes the catches on the way to it swallow.
      const seen = new Map<Body, Set<string>>();
      const queue: { body: Body; swallowed: Swallowed }[] = [{ body: member, swallowed: [] }];
      while (queue.length > 0) {
        const { body, swallowed } = queue.pop()!;
        const key = [...new Set(swallowed)].sort().join(' ');
        const keys = seen.get(body) ?? new Set<string>();
        if (keys.has(key)) continue;
        seen.set(body, keys.add(key));
        const edges = edgesOf(body);
        edges.codes.forEach((code) => !swallows(swallowed, code) && result.codes.add(code));
        edges.unknown.forEach((place) => result.unknown.add(place));
        // A code the route's own parameters would decide: no call site to read it from.
        if (body === member) edges.fromParameters.forEach(({ place }) => result.unknown.add(place));
        for (const callee of edges.callees) queue.push({ body: callee.body, swallowed: [...swallowed, ...callee.swallowed] });
      }
      routes.push(result);
    }
  }
  return routes;
}

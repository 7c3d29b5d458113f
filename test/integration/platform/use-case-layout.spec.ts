import { readdirSync, readFileSync } from 'node:fs';
import { join, posix, relative } from 'node:path';
import ts from 'typescript';

/**
 * One use case, one place (issue 22, item 1; docs/contributing.md, "Where a use case lives"). Every
 * source of libs/<context>/src (specs aside) is parsed with the TypeScript compiler, no list kept by
 * hand, and every command, query and handler class, wherever it is, must sit where the layout puts it:
 *
 *   libs/<context>/src/application/<area>/<name>.command.ts   class <Name>Command extends Command<…>
 *   libs/<context>/src/application/<area>/<name>.query.ts     class <Name>Query extends Query<…>
 *   libs/<context>/src/application/<area>/<name>.handler.ts   @CommandHandler(<Name>Command) class <Name>Handler
 *                                                             (or @QueryHandler(<Name>Query), imported from ./<name>.query)
 *
 * `<name>` is the kebab-case of `<Name>`. Each of these files holds that one class (interfaces, types,
 * functions and constants beside it are fine, a second class is not); an @EventsHandler class follows
 * the handler rule but for the message. Views, row mappers and helpers go beside them in the area.
 * A message is a class named *Command or *Query that extends Command or Query (or implements
 * ICommand or IQuery) of @nestjs/cqrs. Bus registration itself is checked by bus-registration.spec.ts.
 */
const ROOT = join(__dirname, '../../..');

type HandlerDecorator = 'CommandHandler' | 'QueryHandler' | 'EventsHandler';
const HANDLER_DECORATORS: readonly string[] = ['CommandHandler', 'QueryHandler', 'EventsHandler'];
const MESSAGE_BASES: Record<string, 'command' | 'query'> = {
  Command: 'command',
  ICommand: 'command',
  Query: 'query',
  IQuery: 'query',
};

/** `PublishPlanVersion` → `publish-plan-version` (`GetAPIKey` → `get-api-key`). */
function kebab(name: string): string {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1-$2')
    .replace(/([A-Z])([A-Z][a-z])/g, '$1-$2')
    .toLowerCase();
}

interface SourceText {
  /** Relative to the repository root, with forward slashes: `libs/<context>/src/…`. */
  path: string;
  text: string;
}

/** Where a file sits: its context and, when it is directly in `application/<area>/`, that area. */
function placeOf(path: string): { context: string; area: string | undefined } {
  const [, context, , ...rest] = path.split('/');
  const area = rest.length === 3 && rest[0] === 'application' ? rest[1] : undefined;
  return { context, area };
}

/** The local names a file imports, with the module they come from and the name exported there. */
function importsOf(file: ts.SourceFile): Map<string, { from: string; name: string }> {
  const imports = new Map<string, { from: string; name: string }>();
  for (const statement of file.statements) {
    if (!ts.isImportDeclaration(statement) || !ts.isStringLiteral(statement.moduleSpecifier)) continue;
    const bindings = statement.importClause?.namedBindings;
    if (!bindings || !ts.isNamedImports(bindings)) continue;
    for (const element of bindings.elements) {
      imports.set(element.name.text, {
        from: statement.moduleSpecifier.text,
        name: (element.propertyName ?? element.name).text,
      });
    }
  }
  return imports;
}

/** The decorator of a handler class (`@CommandHandler(X)` …) and the identifiers it names. */
function handlerDecoratorOf(node: ts.ClassDeclaration): { kind: HandlerDecorator; messages: string[] } | undefined {
  for (const decorator of ts.getDecorators(node) ?? []) {
    const call = decorator.expression;
    if (!ts.isCallExpression(call) || !ts.isIdentifier(call.expression)) continue;
    if (!HANDLER_DECORATORS.includes(call.expression.text)) continue;
    return {
      kind: call.expression.text as HandlerDecorator,
      messages: call.arguments.map((argument) => argument.getText()),
    };
  }
  return undefined;
}

/** Whether a class extends or implements the Command or Query of @nestjs/cqrs, and which. */
function messageKindOf(
  node: ts.ClassDeclaration,
  imports: Map<string, { from: string; name: string }>,
): 'command' | 'query' | undefined {
  for (const clause of node.heritageClauses ?? []) {
    for (const type of clause.types) {
      if (!ts.isIdentifier(type.expression)) continue;
      const imported = imports.get(type.expression.text);
      if (imported?.from === '@nestjs/cqrs' && imported.name in MESSAGE_BASES) return MESSAGE_BASES[imported.name];
    }
  }
  return undefined;
}

/**
 * What breaks the layout in these files: one line a misplaced class, naming its file, the class and
 * each rule it breaks. Pure (no file system), so the spec shows it on broken variants too.
 */
function isExported(node: ts.ClassDeclaration): boolean {
  return (ts.getModifiers(node) ?? []).some((modifier) => modifier.kind === ts.SyntaxKind.ExportKeyword);
}

function useCaseLayoutProblems(sources: SourceText[]): string[] {
  const problems: string[] = [];
  for (const { path, text } of sources) {
    const file = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
    const imports = importsOf(file);
    const classes = file.statements.filter(ts.isClassDeclaration);
    const names = classes.map((node) => node.name?.text ?? '(anonymous class)');
    const fileName = posix.basename(path);
    const { area } = placeOf(path);

    classes.forEach((node, index) => {
      const name = names[index];
      // A class private to the file (a marker error a handler throws and catches) may stay with it.
      const others = names.filter((_, other) => other !== index && isExported(classes[other]));
      const handler = handlerDecoratorOf(node);
      const messageKind = handler ? undefined : messageKindOf(node, imports);
      if (!handler && !messageKind) return;
      const kind = handler ? `@${handler.kind}` : messageKind!;
      const suffix = handler ? 'Handler' : messageKind === 'command' ? 'Command' : 'Query';
      const useCase = name.endsWith(suffix) ? name.slice(0, -suffix.length) : name;
      const expectedFile = `${kebab(useCase)}.${handler ? 'handler' : messageKind}.ts`;
      const issues: string[] = [];

      if (!name.endsWith(suffix)) issues.push(`its name does not end in ${suffix}`);
      if (!area) issues.push(`it is not in an area folder (libs/<context>/src/application/<area>/${expectedFile})`);
      if (fileName !== expectedFile) issues.push(`its file is ${expectedFile}, not ${fileName}`);
      if (others.length > 0) issues.push(`it shares its file with ${others.join(', ')}`);

      if (handler && handler.kind !== 'EventsHandler') {
        const messageSuffix = handler.kind === 'CommandHandler' ? 'Command' : 'Query';
        const expectedMessage = `${useCase}${messageSuffix}`;
        const expectedMessageFile = `./${kebab(useCase)}.${messageSuffix.toLowerCase()}`;
        const [message] = handler.messages;
        const imported = imports.get(message);
        if (handler.messages.length !== 1 || message !== expectedMessage) {
          issues.push(`it handles ${handler.messages.join(', ') || 'nothing'}, not ${expectedMessage}`);
        } else if (imported?.from !== expectedMessageFile) {
          const where = imported
            ? `comes from ${imported.from}`
            : names.includes(message)
              ? 'is declared in this file'
              : 'is not imported by name';
          issues.push(`${message} must come from ${expectedMessageFile} (a message and its handler share a folder); it ${where}`);
        }
      }
      if (issues.length > 0) problems.push(`${path}: ${name} (${kind}): ${issues.join('; ')}.`);
    });
  }
  return problems;
}

/** Every TypeScript source of a context but its specs. */
function sourcesOf(context: string): SourceText[] {
  const src = join(ROOT, 'libs', context, 'src');
  return readdirSync(src, { recursive: true, encoding: 'utf8' })
    .filter((path) => path.endsWith('.ts') && !path.endsWith('.spec.ts') && !path.endsWith('.d.ts'))
    .map((path) => join(src, path))
    .map((path) => ({ path: relative(ROOT, path).split('\\').join('/'), text: readFileSync(path, 'utf8') }));
}

const CONTEXTS = readdirSync(join(ROOT, 'libs'), { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name)
  .sort();

describe('use case layout (one use case, one file pair in its area folder)', () => {
  it('reads every context of libs/ and finds their handlers', () => {
    expect(CONTEXTS).toEqual(
      expect.arrayContaining(['billing-wallet', 'catalog', 'documents', 'identity', 'shared-kernel', 'webhooks']),
    );
    const handlers = CONTEXTS.flatMap(sourcesOf).filter(({ text }) => /@(Command|Query)Handler\(/.test(text));
    expect(handlers.length).toBeGreaterThan(0);
  });

  it.each(CONTEXTS)('%s keeps each command, query and handler in its own file in application/<area>/', (context) => {
    expect(useCaseLayoutProblems(sourcesOf(context))).toEqual([]);
  });

  describe('refuses a broken layout', () => {
    const area = 'libs/example/src/application/plans';
    const cqrs = (...names: string[]) => `import { ${names.join(', ')} } from '@nestjs/cqrs';\n`;
    const command = (name: string) => `export class ${name}Command extends Command<void> {}\n`;
    const handler = (name: string, handled = `${name}Command`) =>
      `@CommandHandler(${handled})\nexport class ${name}Handler implements ICommandHandler<${handled}> {\n  async execute() {}\n}\n`;
    const publishPlan = [
      { path: `${area}/publish-plan.command.ts`, text: cqrs('Command') + command('PublishPlan') },
      {
        path: `${area}/publish-plan.handler.ts`,
        text:
          cqrs('CommandHandler', 'ICommandHandler') +
          `import { PublishPlanCommand } from './publish-plan.command';\n` +
          handler('PublishPlan'),
      },
    ];

    it('accepts the layout itself', () => {
      expect(useCaseLayoutProblems(publishPlan)).toEqual([]);
    });

    it('two handlers in one file', () => {
      const text =
        cqrs('CommandHandler', 'ICommandHandler') +
        `import { ArchivePlanCommand, PublishPlanCommand } from './plan.commands';\n` +
        handler('PublishPlan') +
        handler('ArchivePlan');
      expect(useCaseLayoutProblems([{ path: `${area}/plan.handlers.ts`, text }])).toEqual([
        `${area}/plan.handlers.ts: PublishPlanHandler (@CommandHandler): its file is publish-plan.handler.ts, not plan.handlers.ts; ` +
          'it shares its file with ArchivePlanHandler; PublishPlanCommand must come from ./publish-plan.command ' +
          '(a message and its handler share a folder); it comes from ./plan.commands.',
        `${area}/plan.handlers.ts: ArchivePlanHandler (@CommandHandler): its file is archive-plan.handler.ts, not plan.handlers.ts; ` +
          'it shares its file with PublishPlanHandler; ArchivePlanCommand must come from ./archive-plan.command ' +
          '(a message and its handler share a folder); it comes from ./plan.commands.',
      ]);
    });

    it('two commands in one file at application/ root', () => {
      const path = 'libs/example/src/application/plan.commands.ts';
      expect(useCaseLayoutProblems([{ path, text: cqrs('Command') + command('PublishPlan') + command('ArchivePlan') }])).toEqual([
        `${path}: PublishPlanCommand (command): it is not in an area folder (libs/<context>/src/application/<area>/publish-plan.command.ts); ` +
          'its file is publish-plan.command.ts, not plan.commands.ts; it shares its file with ArchivePlanCommand.',
        `${path}: ArchivePlanCommand (command): it is not in an area folder (libs/<context>/src/application/<area>/archive-plan.command.ts); ` +
          'its file is archive-plan.command.ts, not plan.commands.ts; it shares its file with PublishPlanCommand.',
      ]);
    });

    it('a command and its handler in one file', () => {
      const path = `${area}/publish-plan.handler.ts`;
      const text = cqrs('Command', 'CommandHandler', 'ICommandHandler') + command('PublishPlan') + handler('PublishPlan');
      expect(useCaseLayoutProblems([{ path, text }])).toEqual([
        `${path}: PublishPlanCommand (command): its file is publish-plan.command.ts, not publish-plan.handler.ts; it shares its file with PublishPlanHandler.`,
        `${path}: PublishPlanHandler (@CommandHandler): it shares its file with PublishPlanCommand; PublishPlanCommand must come from ` +
          './publish-plan.command (a message and its handler share a folder); it is declared in this file.',
      ]);
    });

    it('a handler named after another use case, and a message from another folder', () => {
      const imports = cqrs('CommandHandler', 'ICommandHandler');
      expect(
        useCaseLayoutProblems([
          {
            path: `${area}/release-plan.handler.ts`,
            text:
              imports +
              `import { PublishPlanCommand } from './publish-plan.command';\n` +
              handler('ReleasePlan', 'PublishPlanCommand'),
          },
          {
            path: `${area}/archive-plan.handler.ts`,
            text: imports + `import { ArchivePlanCommand } from '../archive/archive-plan.command';\n` + handler('ArchivePlan'),
          },
        ]),
      ).toEqual([
        `${area}/release-plan.handler.ts: ReleasePlanHandler (@CommandHandler): it handles PublishPlanCommand, not ReleasePlanCommand.`,
        `${area}/archive-plan.handler.ts: ArchivePlanHandler (@CommandHandler): ArchivePlanCommand must come from ./archive-plan.command ` +
          '(a message and its handler share a folder); it comes from ../archive/archive-plan.command.',
      ]);
    });

    it('a handler and its command outside application/<area>/', () => {
      const moved = publishPlan.map(({ path, text }) => ({ path: path.replace('application/plans', 'events'), text }));
      expect(useCaseLayoutProblems(moved)).toEqual([
        'libs/example/src/events/publish-plan.command.ts: PublishPlanCommand (command): it is not in an area folder ' +
          '(libs/<context>/src/application/<area>/publish-plan.command.ts).',
        'libs/example/src/events/publish-plan.handler.ts: PublishPlanHandler (@CommandHandler): it is not in an area folder ' +
          '(libs/<context>/src/application/<area>/publish-plan.handler.ts).',
      ]);
    });
  });
});

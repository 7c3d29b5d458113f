import { Injectable, OnModuleInit, Type } from '@nestjs/common';
import { ModulesContainer } from '@nestjs/core';
import { Command, Query } from '@nestjs/cqrs';

/**
 * Bus ports: the commands and queries of other contexts that a context sends over the command or
 * query bus. A context cannot import the module that handles them (contexts meet only in the host),
 * so it declares them on its module and the host must register a module that handles each one;
 * `BusPortsCheck` refuses to start an application that does not (issue 22, item 2). Without it, a
 * missing handler is a 500 the first time the message is sent (`CommandHandlerNotFoundException`).
 *
 *   @RequiresBusHandlers(GetCustomerQuery)
 *   @Module({ providers: [...] })
 *   export class CatalogModule {}
 */
export type BusMessage = Type<Command<unknown>> | Type<Query<unknown>>;

const REQUIRED_BUS_HANDLERS = Symbol('requiredBusHandlers');

/**
 * The metadata keys `@CommandHandler` and `@QueryHandler` of @nestjs/cqrs write (not exported by
 * the package; bus-ports.spec.ts proves they still match).
 */
export const COMMAND_HANDLER_METADATA = '__commandHandler__';
export const QUERY_HANDLER_METADATA = '__queryHandler__';

/** Declares, on a context's module, the other contexts' commands and queries it sends. */
export function RequiresBusHandlers(...messages: BusMessage[]): ClassDecorator {
  return (target) => {
    Reflect.defineMetadata(REQUIRED_BUS_HANDLERS, messages, target);
  };
}

/** The bus ports a module declared (none when it declared none). */
export function requiredBusHandlersOf(module: Type): BusMessage[] {
  return (Reflect.getOwnMetadata(REQUIRED_BUS_HANDLERS, module) as BusMessage[] | undefined) ?? [];
}

/** The command or query a class handles, when it is a `@CommandHandler` or `@QueryHandler`. */
export function handledMessageOf(provider: unknown): { kind: 'command' | 'query'; message: BusMessage } | undefined {
  if (typeof provider !== 'function') return undefined;
  const command = Reflect.getOwnMetadata(COMMAND_HANDLER_METADATA, provider) as BusMessage | undefined;
  if (command) return { kind: 'command', message: command };
  const query = Reflect.getOwnMetadata(QUERY_HANDLER_METADATA, provider) as BusMessage | undefined;
  if (query) return { kind: 'query', message: query };
  return undefined;
}

/** A module of the application as the check sees it: its class and the classes of its providers. */
export interface ModuleProviders {
  module: Type;
  providers: unknown[];
}

/**
 * What is wrong with the bus wiring of these modules, one sentence a problem: a declared port no
 * module handles, or a command or query with more than one handler (the bus keeps only the last).
 */
export function busWiringProblems(modules: ModuleProviders[]): string[] {
  const handlers = new Map<BusMessage, string[]>();
  for (const { module, providers } of modules) {
    for (const provider of providers) {
      const handled = handledMessageOf(provider);
      if (!handled) continue;
      const names = handlers.get(handled.message) ?? [];
      const name = `${(provider as Type).name} (${module.name})`;
      if (!names.includes(name)) names.push(name);
      handlers.set(handled.message, names);
    }
  }
  const problems: string[] = [];
  for (const { module } of modules) {
    for (const message of requiredBusHandlersOf(module)) {
      if (!handlers.has(message)) {
        problems.push(
          `${module.name} sends ${message.name} but no module of this application registers a handler for it: ` +
            `import the module that handles ${message.name} (a @${isQuery(message) ? 'QueryHandler' : 'CommandHandler'}(${message.name}) in its providers).`,
        );
      }
    }
  }
  for (const [message, names] of handlers) {
    if (names.length > 1)
      problems.push(`${message.name} has ${names.length} handlers (${names.join(', ')}); the bus keeps only one.`);
  }
  return [...new Set(problems)];
}

function isQuery(message: BusMessage): boolean {
  return message.prototype instanceof Query;
}

/**
 * Checks the bus wiring of the whole application once every module is built, before any module's
 * start-up hook opens a connection: the application does not start with a port unsatisfied.
 */
@Injectable()
export class BusPortsCheck implements OnModuleInit {
  constructor(private readonly container: ModulesContainer) {}

  onModuleInit(): void {
    const modules: ModuleProviders[] = [...this.container.values()].map((module) => ({
      module: module.metatype,
      providers: [...module.providers.values()].map((wrapper) => wrapper.metatype),
    }));
    const problems = busWiringProblems(modules);
    if (problems.length > 0) throw new Error(`The command and query buses are not wired:\n- ${problems.join('\n- ')}`);
  }
}

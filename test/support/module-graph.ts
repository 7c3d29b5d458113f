import { DynamicModule, Provider, Type } from '@nestjs/common';

type ModuleRef = Type | DynamicModule | Promise<DynamicModule> | { forwardRef: () => Type };

export interface GraphModule {
  /** The classes of its providers, as Nest resolves them (`useClass` providers by their class; values and factories left out). */
  providers: unknown[];
  controllers: Type[];
}

/**
 * Every module of the graph under `root` (a host's root module, as built by its forRoot), read from
 * the modules' metadata without instantiating anything: no database, no server.
 */
export function moduleGraph(root: ModuleRef): Map<Type, GraphModule> {
  const found = new Map<Type, GraphModule>();
  const seen = new Set<unknown>();
  const visit = (ref: ModuleRef): void => {
    if (seen.has(ref)) return;
    seen.add(ref);
    if (ref instanceof Promise) throw new Error('an asynchronous dynamic module: extend this walk to await it');
    if ('forwardRef' in ref) return visit(ref.forwardRef());
    const type = typeof ref === 'function' ? ref : ref.module;
    const dynamic = typeof ref === 'function' ? undefined : ref;
    const providers: Provider[] = [
      ...((Reflect.getMetadata('providers', type) as Provider[] | undefined) ?? []),
      ...(dynamic?.providers ?? []),
    ];
    const controllers: Type[] = [
      ...((Reflect.getMetadata('controllers', type) as Type[] | undefined) ?? []),
      ...(dynamic?.controllers ?? []),
    ];
    const classes = providers.map((provider) =>
      typeof provider === 'function' ? provider : 'useClass' in provider ? provider.useClass : undefined,
    );
    const entry = found.get(type) ?? { providers: [], controllers: [] };
    entry.providers.push(...classes.filter(Boolean));
    entry.controllers.push(...controllers);
    found.set(type, entry);
    const imports: ModuleRef[] = [
      ...((Reflect.getMetadata('imports', type) as ModuleRef[] | undefined) ?? []),
      ...((dynamic?.imports ?? []) as ModuleRef[]),
    ];
    for (const imported of imports) if (imported) visit(imported);
  };
  visit(root);
  return found;
}

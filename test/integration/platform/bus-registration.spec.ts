import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { Type } from '@nestjs/common';
import { Command, Query } from '@nestjs/cqrs';
import * as billingWallet from '@app/billing-wallet';
import * as catalog from '@app/catalog';
import * as documents from '@app/documents';
import * as identity from '@app/identity';
import { BusMessage, busWiringProblems, handledMessageOf, ModuleProviders, requiredBusHandlersOf } from '@app/shared-kernel';
import { AppModule } from '../../../apps/api/src/app.module';
import { loadConfig } from '../../../apps/api/src/config/app-config';
import { moduleGraph } from '../../support/module-graph';

/**
 * Registration that cannot be forgotten (issue 22, item 2), read from the module graph the API host
 * boots (AppModule.forRoot, walked without starting it, so no database is needed):
 * - every command and query a context exports has exactly one handler, in that context's module;
 * - every command or query of another context that a context imports (to send it) is declared on
 *   its module with @RequiresBusHandlers, which BusPortsCheck verifies when any host boots;
 * - the host's graph passes that check.
 */
const ROOT = join(__dirname, '../../..');
const CONTEXTS: Record<string, Record<string, unknown>> = {
  'billing-wallet': billingWallet,
  catalog,
  documents,
  identity,
};

function isBusMessage(value: unknown): value is BusMessage {
  return typeof value === 'function' && (value.prototype instanceof Command || value.prototype instanceof Query);
}

function moduleOf(context: string): Type {
  const modules = Object.values(CONTEXTS[context]).filter(
    (value): value is Type => typeof value === 'function' && /Module$/.test(value.name),
  );
  expect(modules).toHaveLength(1);
  return modules[0];
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return name.endsWith('.ts') && !name.endsWith('.spec.ts') ? [path] : [];
  });
}

/** The names a file imports (as values, not `import type`) from each other context's index. */
function crossContextImports(context: string): Map<string, Set<string>> {
  const imported = new Map<string, Set<string>>();
  for (const file of sourceFiles(join(ROOT, 'libs', context, 'src'))) {
    const text = readFileSync(file, 'utf8');
    for (const match of text.matchAll(/import\s+(type\s+)?\{([^}]*)\}\s+from\s+'@app\/([a-z-]+)'/g)) {
      const [, typeOnly, names, from] = match;
      if (typeOnly || from === context || !(from in CONTEXTS)) continue;
      const set = imported.get(from) ?? new Set<string>();
      for (const spec of names.split(',').map((name) => name.trim())) {
        if (spec && !spec.startsWith('type ')) set.add(spec.split(/\s+as\s+/)[0]);
      }
      imported.set(from, set);
    }
  }
  return imported;
}

const config = loadConfig({ LOG_LEVEL: 'silent', DATABASE_URL: 'postgres://unused@127.0.0.1:1/unused' });
const root = AppModule.forRoot({ config, databaseUrl: 'postgres://unused@127.0.0.1:1/unused', appSecret: 'a'.repeat(32) });
const graph = new Map([...moduleGraph(root)].map(([module, { providers }]) => [module, providers]));
const handlers = [...graph].flatMap(([module, providers]) =>
  providers.flatMap((provider) => {
    const handled = handledMessageOf(provider);
    return handled ? [{ module, handler: provider as Type, message: handled.message }] : [];
  }),
);

describe('bus registration in the API host', () => {
  it('walks every context module the host imports', () => {
    for (const context of Object.keys(CONTEXTS)) expect(graph.has(moduleOf(context))).toBe(true);
    expect(handlers.length).toBeGreaterThan(100);
  });

  describe.each(Object.keys(CONTEXTS))('%s', (context) => {
    const exported = Object.entries(CONTEXTS[context]).filter(([, value]) => isBusMessage(value)) as [string, BusMessage][];

    it('exports commands and queries', () => {
      expect(exported.length).toBeGreaterThan(0);
    });

    it('has exactly one handler, in its own module, for every command and query it exports', () => {
      const wrong = exported.flatMap(([name, message]) => {
        const found = handlers.filter((entry) => entry.message === message);
        const where = found.map((entry) => `${entry.handler.name} in ${entry.module.name}`);
        if (found.length !== 1) return [`${name}: ${found.length} handlers${where.length ? ` (${where.join(', ')})` : ''}`];
        if (found[0].module !== moduleOf(context)) return [`${name}: handled by ${where[0]}, not by ${moduleOf(context).name}`];
        return [];
      });
      expect(wrong).toEqual([]);
    });

    it("declares as bus ports the other contexts' commands and queries it imports, and only those", () => {
      const sent: BusMessage[] = [];
      for (const [from, names] of crossContextImports(context)) {
        for (const name of names) {
          const value = CONTEXTS[from][name];
          if (isBusMessage(value)) sent.push(value);
        }
      }
      const declared = requiredBusHandlersOf(moduleOf(context));
      const names = (messages: BusMessage[]) => messages.map((message) => message.name).sort();
      expect(names(declared)).toEqual(names([...new Set(sent)]));
    });
  });

  it('satisfies every bus port and registers no message twice (what BusPortsCheck verifies at boot)', () => {
    const modules: ModuleProviders[] = [...graph].map(([module, providers]) => ({ module, providers }));
    expect(busWiringProblems(modules)).toEqual([]);
    const ports = modules.flatMap(({ module }) => requiredBusHandlersOf(module).map((port) => `${module.name}: ${port.name}`));
    expect(ports.sort()).toEqual(['BillingWalletModule: HoldForApprovalCommand', 'CatalogModule: GetCustomerQuery']);
  });
});

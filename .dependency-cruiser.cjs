// @ts-check
/**
 * Layer and context boundaries, checked by dependency-cruiser in `npm run lint`
 * (docs/architecture.md: "Layout" and "Rules that keep it simple").
 *
 *   libs/<context>/src/domain          → neither application/ nor infrastructure/
 *   libs/<context>/src/application     → not infrastructure/
 *   libs/<context>/…                   → another context only through its index.ts (`@app/<context>`)
 *   apps/…                             → a context only through its index.ts
 *   libs/…                             → nothing of the repository outside libs/ (a library is usable by any host)
 *
 * Imports that TypeScript erases (`import type`) count too: a type from infrastructure in the domain
 * is the same coupling as a value.
 */
const CONTEXT_INDEX = '^libs/[^/]+/src/index\\.ts$';

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'domain-imports-no-outer-layer',
      comment:
        'The domain (aggregates, value objects, errors, repository ports) knows nothing of the use cases or the adapters: ' +
        "move what it needs into domain/ or pass it in. Nor does it import its own context's module or index.",
      severity: 'error',
      from: { path: '^libs/([^/]+)/src/domain/' },
      to: {
        path: ['^libs/$1/src/(application|infrastructure)/', '^libs/$1/src/[^/]+\\.module\\.ts$', '^libs/$1/src/index\\.ts$'],
      },
    },
    {
      name: 'application-imports-no-infrastructure',
      comment:
        'A use case talks to ports (abstract classes in domain/, or in application/ for what is not the domain), ' +
        'never to their TypeORM or external adapters: the module binds the adapter to the port.',
      severity: 'error',
      from: { path: '^libs/([^/]+)/src/application/' },
      to: { path: '^libs/$1/src/(infrastructure/|[^/]+\\.module\\.ts$)' },
    },
    {
      name: 'context-reaches-another-only-through-its-index',
      comment: "A context reaches another only through the other's index.ts (`@app/<context>`): its commands, queries, events.",
      severity: 'error',
      from: { path: '^libs/([^/]+)/' },
      to: { path: '^libs/[^/]+/', pathNot: ['^libs/$1/', CONTEXT_INDEX] },
    },
    {
      name: 'app-reaches-contexts-only-through-their-index',
      comment: "apps/ composes contexts through their public face (`@app/<context>`), never a context's internals.",
      severity: 'error',
      from: { path: '^apps/' },
      to: { path: '^libs/[^/]+/', pathNot: CONTEXT_INDEX },
    },
    {
      name: 'shared-kernel-depends-on-no-context',
      comment: 'The shared kernel is below every context: it imports none of them.',
      severity: 'error',
      from: { path: '^libs/shared-kernel/' },
      to: { path: '^libs/(?!shared-kernel/)[^/]+/' },
    },
    {
      name: 'libs-import-nothing-from-the-repo-root',
      comment:
        'A context is a library other hosts import: it cannot reach the repository around it (ormconfig.ts, migrations/, ' +
        "apps/, test/). What it needs is in libs/ (the shared kernel's data-source options, the context's own migrations).",
      severity: 'error',
      // A unit spec beside the code may use the repository's test support (test/support/).
      from: { path: '^libs/', pathNot: '\\.spec\\.ts$' },
      to: { pathNot: '^(libs|node_modules)/', dependencyTypesNot: ['core'], couldNotResolve: false },
    },
    {
      name: 'no-unresolvable-import',
      comment: 'An import dependency-cruiser cannot resolve would slip past every rule above.',
      severity: 'error',
      from: { path: '^(apps|libs)/' },
      to: { couldNotResolve: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(^|/)(node_modules|dist)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      extensions: ['.ts', '.js', '.json', '.d.ts'],
    },
    skipAnalysisNotInRules: true,
  },
};

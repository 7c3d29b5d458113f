import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { METHOD_METADATA } from '@nestjs/common/constants.js';
import { OpenAPIObject } from '@nestjs/swagger';
import { AppModule } from '../../../apps/api/src/app.module';
import { loadConfig } from '../../../apps/api/src/config/app-config';
import { operationIdOf } from '../../../apps/api/src/http/operation-id';
import { generateOpenApiDocument } from '../../../apps/api/src/openapi-document';
import { moduleGraph } from '../../support/module-graph';
import { RouteErrors, routeErrors } from '../../support/route-error-reach';

/**
 * Errors declared where they are thrown are documented where they are answered (issue 22, item 4):
 * every error code a route's code can throw (test/support/route-error-reach.ts follows each route
 * through its command or query handler, the domain and the repositories) appears among the error
 * responses the OpenAPI document gives that route (@ApiErrors, plus what route-docs.ts adds from
 * the route's metadata).
 */

/**
 * Codes no static reading can name: the render worker's refusal crosses a thread as data
 * (render-pool.ts rethrows the worker's `{ kind, code }`). The routes that render document
 * RENDER_FAILED and RENDER_BUDGET_EXCEEDED; anything else the worker sends would be undocumented.
 */
const DYNAMIC_CODE_SITES = new Set(['libs/documents/src/infrastructure/rendering/render-pool.ts:60']);

/**
 * Codes a route's code can throw that its OpenAPI responses do not list (route-errors.known-gaps.json;
 * 44 routes and 300 codes when this test was written, 36 routes and 144 codes now). Each is either a
 * documentation gap (add the code to the route's @ApiErrors; a code needs an `example` in its
 * definition to be documented) or an over-approximation of the analysis; close or refine it, then
 * remove it from the file. The test fails on any gap not listed, and on a listed one that is gone.
 * Refined so far: an event's GET read in the transaction that wrote the resource (no not-found), and
 * `catch`es that turn refusals into data (cost values, the publish check, a plan's resolution,
 * pricing's materialize, the auto top-up, the debit batch's refusalOr). What is left are
 * over-approximations the analysis cannot see through:
 * - domain invariants: a draft just opened is there (STAGED_DRAFT_NOT_FOUND, DRAFT_HAS_STAGED_EDITS,
 *   INVALID_BASE_VERSION on a route that opens a draft itself), a due change is scheduled
 *   (INVALID_STATUS_TRANSITION from catch-up's fireDueReleases), a release being canceled is one
 *   (VERSION_NOT_FOUND from cancelRelease), CONFLICT from a plan save (only PATCH /v1/plans/{id}
 *   sends expected_version), a new wallet's defaults (CustomersController.create);
 * - dispatch on data: ApplyMoneyOperation's adjust branch on credit/debit routes, the sandbox
 *   helpers' self-signed webhook (INVALID_SIGNATURE, UNKNOWN_PROVIDER, UNSUPPORTED_EVENT), Money
 *   comparisons of one wallet's own amounts (CURRENCY_MISMATCH);
 * - refusals returned as data (toErrorResponse's per-item bodies of a debit batch), and a
 *   controller's GET after its own create (PLAN_NOT_FOUND, PRODUCT_NOT_FOUND, COST_NOT_FOUND,
 *   SUBSCRIPTION_NOT_FOUND).
 */
const KNOWN_GAPS: Record<string, string[]> = JSON.parse(readFileSync(join(__dirname, 'route-errors.known-gaps.json'), 'utf8'));

interface DocumentedRoute {
  label: string;
  codes: Set<string>;
}

function documentedCodes(document: OpenAPIObject): Map<string, DocumentedRoute> {
  const routes = new Map<string, DocumentedRoute>();
  for (const [path, item] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(item as Record<string, any>)) {
      if (!operation?.responses) continue;
      const codes = new Set<string>();
      for (const response of Object.values(operation.responses as Record<string, any>)) {
        for (const content of Object.values((response.content ?? {}) as Record<string, any>)) {
          for (const example of Object.values((content.examples ?? {}) as Record<string, any>)) {
            if (typeof example.value?.error?.code === 'string') codes.add(example.value.error.code);
          }
        }
      }
      routes.set(operation.operationId, { label: `${method.toUpperCase()} ${path}`, codes });
    }
  }
  return routes;
}

/** `<Controller>.<method>` → the operationId Nest gives it. */
function operationIds(): Map<string, string> {
  const config = loadConfig({ LOG_LEVEL: 'silent' });
  const graph = moduleGraph(AppModule.forRoot({ config, databaseUrl: 'postgres://unused/preview', appSecret: 'a'.repeat(32) }));
  const ids = new Map<string, string>();
  for (const { controllers } of graph.values()) {
    for (const controller of controllers) {
      for (const name of Object.getOwnPropertyNames(controller.prototype)) {
        const handler = controller.prototype[name];
        if (typeof handler !== 'function' || Reflect.getMetadata(METHOD_METADATA, handler) === undefined) continue;
        ids.set(`${controller.name}.${name}`, operationIdOf(controller, name, handler));
      }
    }
  }
  return ids;
}

describe('error codes each route can throw', () => {
  let thrown: RouteErrors[];
  let documented: Map<string, DocumentedRoute>;
  let ids: Map<string, string>;

  beforeAll(async () => {
    thrown = routeErrors();
    documented = documentedCodes(await generateOpenApiDocument());
    ids = operationIds();
  });

  it('reads every documented route from the sources, and finds codes on them', () => {
    const analysed = new Set(thrown.map((route) => ids.get(route.route)));
    expect([...documented.keys()].filter((id) => !analysed.has(id))).toEqual([]);
    expect(thrown.filter((route) => route.codes.size > 0).length).toBeGreaterThan(thrown.length / 2);
    // The analysis reaches through a command's handler into the domain: a wallet debit can refuse for funds.
    const debit = thrown.find((route) => route.route === 'WalletsController.debit');
    expect(debit && [...debit.codes]).toEqual(expect.arrayContaining(['INSUFFICIENT_FUNDS', 'WALLET_NOT_FOUND']));
  });

  it('names every code it meets (no code computed at run time outside the known sites)', () => {
    const unknown = thrown.flatMap((route) =>
      [...route.unknown].filter((site) => !DYNAMIC_CODE_SITES.has(site)).map((site) => `${route.route}: ${site}`),
    );
    expect(unknown).toEqual([]);
  });

  it("documents on each route every code the route's code can throw", () => {
    const gaps: Record<string, string[]> = {};
    for (const route of thrown) {
      const id = ids.get(route.route);
      const docs = id === undefined ? undefined : documented.get(id);
      if (!docs) continue; // a route the document leaves out (operational paths): checked above that none is documented without analysis
      const missing = [...route.codes].filter((code) => !docs.codes.has(code)).sort();
      if (missing.length > 0) gaps[`${docs.label} (${route.route})`] = missing;
    }
    expect(gaps).toEqual(KNOWN_GAPS);
  });
});

import fc from 'fast-check';
import { DataSource } from 'typeorm';
import { badInputSeed, isContractRefusal } from '../support/bad-input';
import { amplifyingDocuments, BadRequest, defectsOf, requestOf, Schema, Tenant } from '../support/openapi-bad-input';
import { DocumentedOperation, documentedOperations } from '../support/openapi-walk';
import { RawClient, rawClient, RawResponse } from '../support/raw-http';
import { leftovers, stateTables, tableDigests } from '../support/table-digest';
import { createTenant, idem } from '../support/tenants';
import { createTestApp, TestApp } from '../support/test-app';

/**
 * R8 over every operation of the live OpenAPI document (a route added later is covered without
 * editing this file): requests spoiled by exactly one defect in a header, the body, the query
 * string or a path id (test/support/openapi-bad-input.ts says which and what each must answer).
 * Every answer must be below 500, every refusal in the contract's error shape (with the status
 * and code the defect decides), no table may change, and no idempotency key, lock or transaction
 * may be left behind.
 *
 * SEED=<n> replays a run; BAD_INPUT_REQUESTS=<n> sizes it (10,000 in CI; a nightly run sets
 * 1,000,000); BAD_INPUT_CONCURRENCY=<n> requests are in flight at once (4).
 */
const seed = badInputSeed();
const REQUESTS = Number(process.env.BAD_INPUT_REQUESTS ?? 10_000);
const CONCURRENCY = Number(process.env.BAD_INPUT_CONCURRENCY ?? 4);
/** Generous: about 3 ms of CPU per request here, far slower when the machine is shared. */
const TIMEOUT_MS = Math.max(180_000, REQUESTS * 60);
/** Requests drawn per batch and operation: big bodies are built a batch at a time, not all at once. */
const BATCH = 100;

function problemWith(request: BadRequest, response: RawResponse): string | undefined {
  if (response.status >= 500) return 'a 5xx';
  const refusal = isContractRefusal(response.status, response.json, response.headers['request-id']);
  if (response.status >= 400 && !refusal) return 'a 4xx outside the error contract';
  if (!request.expect.refused) return undefined;
  if (!refusal) return 'not refused';
  if (request.expect.status !== undefined && response.status !== request.expect.status) return `not ${request.expect.status}`;
  if (request.expect.code !== undefined && response.json.error.code !== request.expect.code) return `not ${request.expect.code}`;
  return undefined;
}

describe('Every documented operation under generated bad input: headers, bodies, query strings, path ids (R8)', () => {
  let t: TestApp;
  let client: RawClient;
  let document: Schema;
  let operations: DocumentedOperation[];
  let tenant: Tenant;

  beforeAll(async () => {
    t = await createTestApp();
    const own = await createTenant(t);
    const other = await createTenant(t);
    document = (await t.http.get('/openapi.json').expect(200)).body;
    operations = documentedOperations(document).filter((operation) => operation.path.startsWith('/v1/'));
    const templates = await t.http.get('/v1/document_templates').set('Authorization', own.auth).expect(200);
    tenant = {
      auth: own.auth,
      sandboxWorkspaceId: own.sandboxWorkspaceId,
      foreignWorkspaceId: other.liveWorkspaceId,
      readableIds: { '/v1/document_templates/{id}': templates.body.data[0].id },
    };
    client = await rawClient(t);
  });
  afterAll(async () => {
    await client?.close();
    await t?.close();
  });

  it(
    `answers ${REQUESTS} spoiled requests below 500, refusals in the error contract, with no table changed (SEED printed)`,
    async () => {
      const file = __filename.split('/test/')[1];
      console.log(`bad input R8: SEED=${seed} BAD_INPUT_REQUESTS=${REQUESTS} (replay: SEED=${seed} npm test -- test/${file})`);
      const db = t.app.get(DataSource);
      const tables = await stateTables(db);
      const before = await tableDigests(db, tables);
      const started = Date.now();
      const perOperation = Math.ceil(REQUESTS / operations.length);
      const byClass: Record<string, number> = {};
      const byFamily: Record<string, number> = {};
      const defects = operations.map((operation) => defectsOf(operation, document, tenant));
      const unexpected: string[] = [];
      let sent = 0;

      for (let from = 0; from < perOperation; from += BATCH) {
        const batch: BadRequest[] = operations.flatMap((operation, index) =>
          fc
            .sample(defects[index], {
              seed: seed + index * 7919 + from,
              numRuns: Math.min(BATCH, perOperation - from),
            })
            .map((draft) => requestOf(operation, document, tenant, draft, idem())),
        );
        let next = 0;
        const worker = async () => {
          for (let request = batch[next++]; request !== undefined; request = batch[next++]) {
            let response: RawResponse;
            try {
              response = request.bytes ? await client.sendBytes(request.bytes) : await client.send(request);
            } catch (error) {
              unexpected.push(`${request.operation} [${request.defect}] → no answer: ${String(error)}`);
              continue;
            }
            sent += 1;
            byFamily[request.family] = (byFamily[request.family] ?? 0) + 1;
            byClass[`${Math.floor(response.status / 100)}xx`] = (byClass[`${Math.floor(response.status / 100)}xx`] ?? 0) + 1;
            const problem = problemWith(request, response);
            if (problem)
              unexpected.push(
                `${request.operation} [${request.defect}] → ${problem}: ${response.status} ${response.text.slice(0, 200)}`,
              );
          }
        };
        await Promise.all(Array.from({ length: CONCURRENCY }, worker));
      }

      const seconds = (Date.now() - started) / 1000;
      console.log(
        `bad input R8: ${sent} requests over ${operations.length} operations in ${seconds.toFixed(1)} s ` +
          `(${Math.round(sent / seconds)}/s); by status class ${JSON.stringify(byClass)}; SEED=${seed}`,
      );
      console.log(`bad input R8: requests by defect family ${JSON.stringify(byFamily)}`);
      // One report: wrong answers, changed tables and leftovers together, so that a broken check shows all it caused.
      const after = await tableDigests(db, tables);
      expect({
        unexpected: unexpected.slice(0, 30),
        changedTables: Object.keys(tables).filter((table) => after[table] !== before[table]),
        leftovers: await leftovers(db),
      }).toEqual({ unexpected: [], changedTables: [], leftovers: { successRecords: 0, advisoryLocks: 0, idleInTransaction: 0 } });
      expect(sent).toBeGreaterThanOrEqual(REQUESTS);
    },
    TIMEOUT_MS,
  );

  it('refuses every amplifying document on every operation whose body holds a template document, and renders the heaviest allowed ones', async () => {
    const db = t.app.get(DataSource);
    const tables = await stateTables(db);
    const before = await tableDigests(db, tables);
    const requests = operations.flatMap((operation) =>
      amplifyingDocuments(operation, document, tenant).map((draft) => requestOf(operation, document, tenant, draft, idem())),
    );
    const unexpected: string[] = [];
    const answered: Record<string, number[]> = {};
    // Two at a time: each may keep a render thread busy.
    for (let from = 0; from < requests.length; from += 2) {
      await Promise.all(
        requests.slice(from, from + 2).map(async (request) => {
          const response = await client.send(request);
          (answered[request.operation] ??= []).push(response.status);
          const problem = problemWith(request, response);
          if (problem)
            unexpected.push(
              `${request.operation} [${request.defect}] → ${problem}: ${response.status} ${response.text.slice(0, 200)}`,
            );
        }),
      );
    }
    console.log(`bad input R8: amplifying documents, statuses by operation ${JSON.stringify(answered)}`);
    const after = await tableDigests(db, tables);
    expect({
      unexpected,
      changedTables: Object.keys(tables).filter((table) => after[table] !== before[table]),
      leftovers: await leftovers(db),
    }).toEqual({ unexpected: [], changedTables: [], leftovers: { successRecords: 0, advisoryLocks: 0, idleInTransaction: 0 } });
    // Found by shape in the document: creating, updating and previewing a template at least.
    expect(Object.keys(answered).length).toBeGreaterThanOrEqual(3);
  });
});

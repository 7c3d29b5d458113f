import SwaggerParser from '@apidevtools/swagger-parser';
import { DataSource } from 'typeorm';
import { ProbeModule } from '../support/probe.module';
import { createTestApp, TestApp } from '../support/test-app';

describe('Operations: health and OpenAPI', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp({ imports: [ProbeModule] });
  });
  afterAll(() => t.close());

  it('reports liveness without auth', async () => {
    const response = await t.http.get('/health/live').expect(200);
    expect(response.body).toEqual({ status: 'ok' });
    expect(response.headers['request-id']).toMatch(/^req_/);
  });

  /** On a Citus coordinator readiness names the engine and its active workers (contract §6); nothing on one PostgreSQL. */
  async function engine(): Promise<Record<string, unknown>> {
    const dataSource = t.app.get(DataSource);
    const citus: unknown[] = await dataSource.query(`SELECT 1 FROM pg_extension WHERE extname = 'citus'`);
    if (citus.length === 0) return {};
    const [{ workers }] = await dataSource.query(
      `SELECT count(*)::int AS workers FROM pg_dist_node WHERE groupid <> 0 AND noderole = 'primary' AND isactive`,
    );
    expect(workers).toBeGreaterThan(0);
    return { database: { engine: 'citus', workers } };
  }

  it('reports readiness: database up and every migration applied (on Citus, the engine and its workers)', async () => {
    const response = await t.http.get('/health/ready').expect(200);
    expect(response.body).toEqual({ status: 'ok', checks: { database: 'up', migrations: 'applied' }, ...(await engine()) });
  });

  it('reports not ready (503) while a migration is pending', async () => {
    const dataSource = t.app.get(DataSource);
    const [last] = await dataSource.query('SELECT id, timestamp, name FROM schema_migrations ORDER BY id DESC LIMIT 1');
    await dataSource.query('DELETE FROM schema_migrations WHERE id = $1', [last.id]);
    try {
      const response = await t.http.get('/health/ready').expect(503);
      expect(response.body).toEqual({
        status: 'unavailable',
        checks: { database: 'up', migrations: 'pending' },
        ...(await engine()),
      });
    } finally {
      await dataSource.query('INSERT INTO schema_migrations (id, timestamp, name) VALUES ($1, $2, $3)', [
        last.id,
        last.timestamp,
        last.name,
      ]);
    }
    await t.http.get('/health/ready').expect(200);
  });

  it('serves Swagger UI at /docs', async () => {
    const response = await t.http.get('/docs').redirects(1).expect(200);
    expect(response.text).toContain('swagger-ui');
  });

  it('serves the same document as YAML at /openapi.yaml, and the API guide it links to', async () => {
    const yaml = await t.http.get('/openapi.yaml').expect(200);
    expect(yaml.headers['content-type']).toMatch(/^text\/yaml/);
    expect(yaml.text).toMatch(/^openapi: 3\.1\.0$/m);
    const document = (await t.http.get('/openapi.json').expect(200)).body;
    expect(document.info.description).toContain('(/docs/api-guide.md)');
    const guide = await t.http.get('/docs/api-guide.md').expect(200);
    expect(guide.text).toMatch(/^# API guide/);
  });

  it('declares its tags in workflow order, each described', async () => {
    const { tags } = (await t.http.get('/openapi.json').expect(200)).body as {
      tags: Array<{ name: string; description?: string }>;
    };
    const names = tags.map((tag) => tag.name);
    expect(names.slice(0, 4)).toEqual(['Customers', 'Wallets', 'Top-ups and payments', 'FX rates']);
    expect(names.indexOf('Costs')).toBeLessThan(names.indexOf('Products'));
    expect(names.indexOf('Products')).toBeLessThan(names.indexOf('Plans'));
    expect(names.indexOf('Plans')).toBeLessThan(names.indexOf('Changes'));
    expect(names.indexOf('Changes')).toBeLessThan(names.indexOf('Document templates'));
    // The probe module exists in tests only.
    expect(tags.filter((tag) => !tag.description && !tag.name.endsWith('(test only)')).map((tag) => tag.name)).toEqual([]);
  });

  it('serves a valid OpenAPI 3.1 document that documents every route, errors and auth included', async () => {
    const response = await t.http.get('/openapi.json').expect(200);
    const document = response.body;
    expect(document.openapi).toBe('3.1.0');
    await SwaggerParser.validate(structuredClone(document));

    expect(document.components.securitySchemes.bearer).toEqual(expect.objectContaining({ type: 'http', scheme: 'bearer' }));
    expect(document.components.schemas.ErrorBody).toBeDefined();

    const documented = new Set<string>();
    for (const [path, operations] of Object.entries<Record<string, unknown>>(document.paths)) {
      for (const method of Object.keys(operations))
        documented.add(`${method.toUpperCase()} ${path.replace(/\{(\w+)\}/g, ':$1')}`);
    }
    const served = t.routes.filter(
      (route) => !route.startsWith('HEAD ') && !route.startsWith('OPTIONS ') && !/^GET \/(docs|openapi)/.test(route),
    );
    expect(served.length).toBeGreaterThan(3);
    for (const route of served) expect(documented).toContain(route);
    for (const path of Object.keys(document.paths)) {
      expect(path.startsWith('/v1/') || path.startsWith('/health/')).toBe(true);
    }
  });

  it('gives every property of every schema an example, unless it refers to another schema or admits no value', async () => {
    const document = (await t.http.get('/openapi.json').expect(200)).body;
    type Schema = { $ref?: string; allOf?: Schema[]; oneOf?: Schema[]; anyOf?: Schema[]; items?: Schema; not?: Schema };
    // A nested DTO carries its own examples; a nullable one is rendered as anyOf [$ref, null].
    const refers = (schema: Schema): boolean =>
      typeof schema.$ref === 'string' || [...(schema.allOf ?? []), ...(schema.oneOf ?? []), ...(schema.anyOf ?? [])].some(refers);
    const schemas = Object.entries<{ properties?: Record<string, Schema> }>(document.components.schemas);
    expect(schemas.length).toBeGreaterThan(10);
    const missing = schemas.flatMap(([name, schema]) =>
      Object.entries(schema.properties ?? {})
        .filter(([, property]) => !('example' in property || 'examples' in property))
        .filter(([, property]) => !refers(property) && !(property.items && refers(property.items)))
        // A field that is always refused (`not: {}`) has no value to show.
        .filter(([, property]) => property.not === undefined)
        .map(([property]) => `${name}.${property}`),
    );
    expect(missing).toEqual([]);
  });
});

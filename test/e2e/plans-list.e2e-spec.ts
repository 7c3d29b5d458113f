import { randomBytes } from 'node:crypto';
import { Response } from 'supertest';
import { expectError } from '../support/auth-helpers';
import { CatalogClient } from '../support/catalog-helpers';
import { createTenant, TestTenant } from '../support/tenants';
import { createTestApp, TestApp } from '../support/test-app';

jest.setTimeout(120_000);

/**
 * GET /v1/plans (model §6): every filter field × operator, search ranking, every sort both ways,
 * cursors bound to what they list, counts, and tenancy. The fixture is built through the API:
 * plans created, published (twice for one), scheduled, archived and deleted.
 */

interface Fixture {
  name: string;
  description?: string | null;
  external_id?: string;
  tags?: string[];
  custom_fields?: Record<string, unknown>;
}

const FIXTURES: Fixture[] = [
  {
    name: 'Growth',
    description: 'Mid-market',
    external_id: 'crm-growth',
    tags: ['smb', 'eu'],
    custom_fields: { region: 'eu', tier: 2, beta: true },
  },
  { name: 'growth plus', external_id: 'crm-growth-plus', tags: ['smb'], custom_fields: { region: 'us', tier: '2' } },
  { name: 'Scale, EU', description: 'Enterprise', tags: ['eu'], custom_fields: { region: 'eu', tier: 3 } },
  { name: 'Starter', description: '50%_off', external_id: 'legacy-growth-1', custom_fields: { beta: false } },
  { name: 'Regrowth', external_id: 'x-5' },
  { name: 'Zeta', description: 'alpha', external_id: 'GROWTH', tags: ['eu'] },
  { name: 'ALPHA', description: '50%Xoff' },
  { name: 'alpha', description: 'Alpha' },
];

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('GET /v1/plans: filters, search, sort, cursors, counts (model §6)', () => {
  let t: TestApp;
  let tenant: TestTenant;
  let api: CatalogClient;
  /** By name, as read back after the whole fixture was built. */
  const plans: Record<string, any> = {};
  let deleted: any;

  /** Every row of the list for a query string (walking its pages), and the pages' sizes. */
  async function all(query = '', limit = 200): Promise<{ names: string[]; rows: any[]; pages: number }> {
    const rows: any[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const response: Response = await api.get(
        `/v1/plans?limit=${limit}${query ? `&${query}` : ''}${cursor ? `&cursor=${cursor}` : ''}`,
      );
      expect({ query, status: response.status, error: response.body.error }).toEqual({ query, status: 200, error: undefined });
      expect(response.body.pagination.cursor === null).toBe(!response.body.pagination.has_more);
      expect(response.body.data.length).toBeLessThanOrEqual(limit);
      rows.push(...response.body.data);
      cursor = response.body.pagination.cursor;
      pages += 1;
    } while (cursor);
    return { names: rows.map((row) => row.name), rows, pages };
  }

  const names = async (query: string) => (await all(query)).names;
  const sorted = (list: string[]) => [...list].sort();

  async function publish(planId: string, extra: object = {}): Promise<any> {
    const plan = (await api.get(`/v1/plans/${planId}`)).body;
    const change = await api.post('/v1/changes', {
      operation: 'catalog.publish_version',
      subject_kind: 'plan',
      subject_id: planId,
      staged_version_id: plan.draft_version.id,
      ...extra,
    });
    expect(change.status).toBe(201);
    return change.body;
  }

  beforeAll(async () => {
    t = await createTestApp();
    tenant = await createTenant(t);
    api = new CatalogClient(t, tenant.auth);
    const created: Record<string, any> = {};
    for (const fixture of FIXTURES) {
      const response = await api.post('/v1/plans', fixture);
      expect(response.status).toBe(201);
      created[fixture.name] = response.body;
      // Distinct created_at values, so that each time filter has one pivot.
      await sleep(3);
    }
    // Growth goes live twice (version 2); Starter once, then queues a release; Scale, EU is archived.
    await publish(created.Growth.id);
    await sleep(3);
    expect((await api.patch(`/v1/plans/${created.Growth.id}`, { price_cadence_unit: 'year' })).status).toBe(200);
    expect((await publish(created.Growth.id)).status).toBe('applied');
    await sleep(3);
    await publish(created.Starter.id);
    expect((await api.patch(`/v1/plans/${created.Starter.id}`, { price_cadence_unit: 'week' })).status).toBe(200);
    const scheduled = await publish(created.Starter.id, { scheduled_for: new Date(Date.now() + 86_400_000).toISOString() });
    expect(scheduled.status).toBe('pending');
    await sleep(3);
    expect((await api.patch(`/v1/plans/${created['Scale, EU'].id}`, { status: 'archived' })).status).toBe(200);
    // A deleted plan never appears, whatever the query.
    deleted = (await api.post('/v1/plans', { name: 'Growth deleted', external_id: 'deleted-growth', tags: ['smb'] })).body;
    expect((await api.delete(`/v1/plans/${deleted.id}`)).status).toBe(204);
    for (const fixture of FIXTURES) plans[fixture.name] = (await api.get(`/v1/plans/${created[fixture.name].id}`)).body;
    expect(plans.Growth).toMatchObject({ status: 'active', version: 2 });
    expect(plans.Starter).toMatchObject({ status: 'active', version: 1, has_scheduled_version: true });
    expect(plans['Scale, EU'].status).toBe('archived');
  });
  afterAll(() => t.close());

  it('lists every plan, newest first, each item exactly the plan object GET /v1/plans/{id} returns', async () => {
    const listed = await all('', 3);
    expect(listed.pages).toBe(3);
    const newestFirst = Object.values(plans).sort((a, b) => (a.created_at < b.created_at ? 1 : -1));
    expect(listed.names).toEqual(newestFirst.map((plan) => plan.name));
    for (const row of listed.rows) expect(row).toEqual(plans[row.name]);
    expect(listed.names).not.toContain('Growth deleted');
    const page = await api.get('/v1/plans');
    expect(page.body.pagination).toEqual({ cursor: null, has_more: false });
    expect(page.body.counts).toBeUndefined();
  });

  it('filters created_at, updated_at and published_at with eq, gt, gte, lt, lte (RFC 3339, any offset)', async () => {
    const all8 = Object.values(plans);
    for (const field of ['created_at', 'updated_at', 'published_at'] as const) {
      const values = [...new Set(all8.map((plan) => plan[field]).filter((value) => value !== null))].sort();
      expect(values.length).toBeGreaterThanOrEqual(2);
      const pivot = values[Math.floor(values.length / 2)];
      const compare: Record<string, (value: string) => boolean> = {
        eq: (value) => value === pivot,
        gt: (value) => value > pivot,
        gte: (value) => value >= pivot,
        lt: (value) => value < pivot,
        lte: (value) => value <= pivot,
      };
      for (const [op, test] of Object.entries(compare)) {
        const expected = sorted(all8.filter((plan) => plan[field] !== null && test(plan[field])).map((plan) => plan.name));
        expect({ field, op, names: sorted(await names(`${field}.${op}=${encodeURIComponent(pivot)}`)) }).toEqual({
          field,
          op,
          names: expected,
        });
      }
      // Bare means eq; the same instant at another offset is the same filter.
      const shifted = new Date(Date.parse(pivot) + 2 * 3_600_000).toISOString().replace('Z', '+02:00');
      expect(sorted(await names(`${field}=${encodeURIComponent(shifted)}`))).toEqual(
        sorted(all8.filter((plan) => plan[field] === pivot).map((plan) => plan.name)),
      );
    }
    // Never-published plans have no published_at: no published_at filter matches them.
    expect(sorted(await names('published_at.gte=2000-01-01T00:00:00Z'))).toEqual(['Growth', 'Starter']);
  });

  it('filters version (the live number) with eq, gt, gte, lt, lte', async () => {
    const everyone = sorted(Object.keys(plans));
    expect(await names('version=2')).toEqual(['Growth']);
    expect(await names('version.eq=2')).toEqual(['Growth']);
    expect(await names('version.gt=1')).toEqual(['Growth']);
    expect(sorted(await names('version.gte=1'))).toEqual(everyone);
    expect(sorted(await names('version.lt=2'))).toEqual(everyone.filter((name) => name !== 'Growth'));
    expect(sorted(await names('version.lte=2'))).toEqual(everyone);
    expect(await names('version.gt=2')).toEqual([]);
  });

  it('filters external_id (eq; bare comma list and .in are in) and name (eq, in, contains; .eq never splits)', async () => {
    expect(await names('external_id=crm-growth')).toEqual(['Growth']);
    expect(await names('external_id.eq=crm-growth')).toEqual(['Growth']);
    expect(sorted(await names('external_id=crm-growth,x-5,nobody'))).toEqual(['Growth', 'Regrowth']);
    expect(sorted(await names('external_id.in=GROWTH,legacy-growth-1'))).toEqual(['Starter', 'Zeta']);
    expect(await names('external_id=growth')).toEqual([]); // exact, case-sensitive
    expect(await names('external_id=deleted-growth')).toEqual([]);
    expect(await names('name=Growth')).toEqual(['Growth']);
    expect(await names('name=growth')).toEqual([]); // case-sensitive
    expect(sorted(await names('name=Growth,Zeta'))).toEqual(['Growth', 'Zeta']);
    expect(sorted(await names('name.in=alpha,ALPHA'))).toEqual(['ALPHA', 'alpha']);
    // A bare comma list splits: "Scale, EU" is then looked for as "Scale" and " EU"; .eq keeps it whole.
    expect(await names('name=Scale%2C%20EU')).toEqual([]);
    expect(await names('name.eq=Scale%2C%20EU')).toEqual(['Scale, EU']);
    expect(sorted(await names('name.contains=GROWTH'))).toEqual(['Growth', 'Regrowth', 'growth plus']);
    expect(sorted(await names('name.contains=ALP'))).toEqual(['ALPHA', 'alpha']);
    // % and _ are literal characters, not wildcards.
    expect(await names('name.contains=%25')).toEqual([]);
    expect(await names('name.contains=_')).toEqual([]);
    expect(await names('name.contains=h%20p')).toEqual(['growth plus']);
  });

  it('filters custom fields by typed value: numbers and booleans when the value parses so, else strings', async () => {
    expect(sorted(await names('custom_fields.region=eu'))).toEqual(['Growth', 'Scale, EU']);
    expect(sorted(await names('custom_fields.region.eq=us'))).toEqual(['growth plus']);
    expect(sorted(await names('custom_fields.region.in=eu,us'))).toEqual(['Growth', 'Scale, EU', 'growth plus']);
    // tier=2 is the number 2: "2" (a string) on growth plus does not match.
    expect(await names('custom_fields.tier=2')).toEqual(['Growth']);
    expect(sorted(await names('custom_fields.tier.in=2,3'))).toEqual(['Growth', 'Scale, EU']);
    expect(await names('custom_fields.beta=true')).toEqual(['Growth']);
    expect(await names('custom_fields.beta=false')).toEqual(['Starter']);
    expect(await names('custom_fields.beta=TRUE')).toEqual([]); // the string "TRUE"
    expect(await names('custom_fields.nothing=eu')).toEqual([]);
    // Numbers PostgreSQL's numeric could not read are looked for as strings (never a 500).
    for (const value of ['1e-99999', '1e400000', `0.${'1'.repeat(3000)}`])
      expect(await names(`custom_fields.tier=${value}`)).toEqual([]);
  });

  it('filters status (comma list), tag (repeatable, all of them) and has_scheduled_version', async () => {
    expect(sorted(await names('status=active'))).toEqual(['Growth', 'Starter']);
    expect(sorted(await names('status=archived,active'))).toEqual(['Growth', 'Scale, EU', 'Starter']);
    expect(await names('status=scheduled')).toEqual([]);
    expect(sorted(await names('status=draft'))).toEqual(['ALPHA', 'Regrowth', 'Zeta', 'alpha', 'growth plus']);
    expect(sorted(await names('tag=eu'))).toEqual(['Growth', 'Scale, EU', 'Zeta']);
    expect(await names('tag=eu&tag=smb')).toEqual(['Growth']);
    expect(sorted(await names('tag=smb'))).toEqual(['Growth', 'growth plus']);
    expect(await names('tag=nope')).toEqual([]);
    expect(await names('has_scheduled_version=true')).toEqual(['Starter']);
    expect(sorted(await names('has_scheduled_version=false'))).toEqual(
      sorted(Object.keys(plans).filter((name) => name !== 'Starter')),
    );
    // Filters AND together.
    expect(await names('tag=eu&status=active&custom_fields.region=eu&version.gte=2&name.contains=row')).toEqual(['Growth']);
  });

  it('searches name and external_id case-insensitively, ranked exact > prefix > substring, ties newest first', async () => {
    // Exact: Zeta (external_id GROWTH) and Growth; prefix: growth plus; substring: Starter (legacy-growth-1), Regrowth.
    const ranked = await names('search=growth');
    const newestFirst = (list: string[]) => [...list].sort((a, b) => (plans[a].created_at < plans[b].created_at ? 1 : -1));
    expect(ranked).toEqual([...newestFirst(['Zeta', 'Growth']), 'growth plus', ...newestFirst(['Starter', 'Regrowth'])]);
    // Trimmed; the same ranking on pages of one.
    expect((await all('search=%20%20GROWTH%20', 1)).names).toEqual(ranked);
    // Any sort turns the ranking off.
    expect(await names('search=growth&sort=name')).toEqual(['Growth', 'growth plus', 'Regrowth', 'Starter', 'Zeta']);
    expect(await names('search=growth&sort=created_at')).toEqual(newestFirst(ranked));
    expect(await names('search=%25')).toEqual([]);
    expect(await names('search=crm-')).toEqual(['growth plus', 'Growth']);
    expect(await names('search=growth&status=draft')).toEqual(['Zeta', 'growth plus', 'Regrowth']);
  });

  it('sorts by created_at, name, status and description, both ways, on pages of any size', async () => {
    const byCreated = Object.values(plans)
      .sort((a, b) => (a.created_at < b.created_at ? -1 : 1))
      .map((plan) => plan.name);
    const byName = ['ALPHA', 'alpha', 'Growth', 'growth plus', 'Regrowth', 'Scale, EU', 'Starter', 'Zeta'];
    const statusOrder = ['draft', 'scheduled', 'active', 'archived'];
    const byStatus = (direction: 1 | -1) =>
      Object.values(plans)
        .sort((a, b) => direction * (statusOrder.indexOf(a.status) - statusOrder.indexOf(b.status) || (a.id < b.id ? -1 : 1)))
        .map((plan) => plan.name);
    // Byte order of the description ("C" collation); plans without one last both ways, among them by id.
    const described = Object.values(plans).filter((plan) => plan.description !== null);
    const undescribed = (direction: 1 | -1) =>
      Object.values(plans)
        .filter((plan) => plan.description === null)
        .sort((a, b) => direction * (a.id < b.id ? -1 : 1))
        .map((plan) => plan.name);
    const byDescription = (direction: 1 | -1) => [
      ...described
        .sort(
          (a, b) => direction * (a.description < b.description ? -1 : a.description > b.description ? 1 : a.id < b.id ? -1 : 1),
        )
        .map((plan) => plan.name),
      ...undescribed(direction),
    ];
    expect(byDescription(1)).toEqual(['ALPHA', 'Starter', 'alpha', 'Scale, EU', 'Growth', 'Zeta', ...undescribed(1)]);
    const expectations: Array<[string, string[]]> = [
      ['sort=created_at', [...byCreated].reverse()],
      ['sort=created_at:desc', [...byCreated].reverse()],
      ['sort=created_at:asc', byCreated],
      ['sort=name', byName],
      ['sort=name:asc', byName],
      ['sort=name:desc', [...byName].reverse()],
      ['sort=status', byStatus(1)],
      ['sort=status:desc', byStatus(-1)],
      ['sort=description', byDescription(1)],
      ['sort=description:asc', byDescription(1)],
      ['sort=description:desc', byDescription(-1)],
    ];
    // The same orders over the matches of a substring (taken from the trigram indexes, then sorted).
    const matching = new Set(['Growth', 'growth plus', 'Regrowth', 'Starter', 'Zeta']);
    const searched = expectations.map(([query, expected]): [string, string[]] => [
      `search=ROW&${query}`,
      expected.filter((name) => matching.has(name)),
    ]);
    for (const [query, expected] of [...expectations, ...searched]) {
      for (const limit of [1, 3, 200]) {
        expect({ query, limit, names: (await all(query, limit)).names }).toEqual({ query, limit, names: expected });
      }
    }
    // Undescribed plans last both ways.
    expect((await names('sort=description:desc')).slice(-2)).toEqual(undescribed(-1));
    expect((await names('sort=description:asc')).slice(-2)).toEqual(undescribed(1));
  });

  it('counts plans by status over every filter but status, zeros included', async () => {
    const counted = await api.get('/v1/plans?counts=status&status=active&tag=eu');
    expect(counted.status).toBe(200);
    expect(counted.body.data.map((plan: any) => plan.name)).toEqual(['Growth']);
    expect(counted.body.counts).toEqual({ status: { draft: 1, scheduled: 0, active: 1, archived: 1 } });
    const everything = await api.get('/v1/plans?counts=status&limit=1');
    expect(everything.body.counts).toEqual({ status: { draft: 5, scheduled: 0, active: 2, archived: 1 } });
    expect(everything.body.data).toHaveLength(1);
    const none = await api.get('/v1/plans?counts=status&name=nobody');
    expect(none.body).toEqual({
      data: [],
      pagination: { cursor: null, has_more: false },
      counts: { status: { draft: 0, scheduled: 0, active: 0, archived: 0 } },
    });
    // A cursor does not depend on counts, nor on the page size.
    const first = await api.get('/v1/plans?counts=status&limit=2&sort=name');
    const next = await api.get(`/v1/plans?limit=3&sort=name&cursor=${first.body.pagination.cursor}`);
    expect(next.status).toBe(200);
    expect(next.body.data.map((plan: any) => plan.name)).toEqual(['Growth', 'growth plus', 'Regrowth']);
  });

  it('binds a cursor to the filters, search and sort that issued it (spelling aside); tampered → INVALID_CURSOR', async () => {
    const first = await api.get('/v1/plans?limit=1&name=Growth,Zeta,alpha&sort=name');
    const cursor = first.body.pagination.cursor;
    expect(first.body.data.map((plan: any) => plan.name)).toEqual(['alpha']);
    const same = await api.get(`/v1/plans?limit=5&name.in=Zeta,alpha,Growth&sort=name:asc&cursor=${cursor}`);
    expect(same.status).toBe(200);
    expect(same.body.data.map((plan: any) => plan.name)).toEqual(['Growth', 'Zeta']);
    for (const other of [
      'name=Growth,Zeta&sort=name',
      'name=Growth,Zeta,alpha&sort=name:desc',
      'name=Growth,Zeta,alpha',
      'name=Growth,Zeta,alpha&sort=name&search=a',
      'name=Growth,Zeta,alpha&sort=name&tag=eu',
      'name=Growth,Zeta,alpha&sort=name&status=draft',
    ]) {
      expectError(await api.get(`/v1/plans?${other}&cursor=${cursor}`), 400, 'INVALID_CURSOR');
    }
    const tampered = `${cursor.slice(0, -2)}${cursor.endsWith('AA') ? 'AB' : 'AA'}`;
    expectError(await api.get(`/v1/plans?name=Growth,Zeta,alpha&sort=name&cursor=${tampered}`), 400, 'INVALID_CURSOR');
    expectError(await api.get('/v1/plans?cursor=garbage'), 400, 'INVALID_CURSOR');
    expectError(await api.get(`/v1/plans?cursor=${cursor}&cursor=${cursor}`), 400, 'INVALID_CURSOR');
    // A search's cursor carries the rank: the ranked walk on pages of one is the ranked list.
    const ranked = await api.get('/v1/plans?search=growth&limit=2');
    expectError(
      await api.get(`/v1/plans?search=growth&sort=created_at&cursor=${ranked.body.pagination.cursor}`),
      400,
      'INVALID_CURSOR',
    );
  });

  it('takes limit forgivingly: default 50, clamped to 200, invalid values fall back to the default', async () => {
    for (const limit of ['0', '-1', 'abc', '1.5', '', '99999999999999999999']) {
      const response = await api.get(`/v1/plans?limit=${limit}`);
      expect({ limit, status: response.status, size: response.body.data?.length }).toEqual({ limit, status: 200, size: 8 });
    }
    expect((await api.get('/v1/plans?limit=500')).body.data).toHaveLength(8);
    expect((await api.get('/v1/plans?limit=2')).body.data).toHaveLength(2);
  });

  it('refuses an unknown parameter, field or operator, a repeated filter or a bad value with 400 INVALID_FILTER naming it', async () => {
    const refused: Array<[string, string]> = [
      ['colour=red', 'colour'],
      ['offset=10', 'offset'],
      ['workspace_id=00000000-0000-0000-0000-000000000000', 'workspace_id'],
      ['name.starts_with=G', 'name.starts_with'],
      ['name.like=G', 'name.like'],
      ['external_id.contains=crm', 'external_id.contains'],
      ['version.in=1,2', 'version.in'],
      ['version.ne=1', 'version.ne'],
      ['created_at.between=x', 'created_at.between'],
      ['created_at.gt.x=2026-01-01T00:00:00Z', 'created_at.gt.x'],
      ['status.in=draft', 'status.in'],
      ['tags=eu', 'tags'],
      ['custom_fields=x', 'custom_fields'],
      ['custom_fields.bad%20key=x', 'custom_fields.bad key'],
      ['custom_fields.region.contains=e', 'custom_fields.region.contains'],
      ['created_at=2026-01-01', 'created_at'],
      ['created_at.gte=yesterday', 'created_at.gte'],
      ['updated_at.lt=2026-02-30T00:00:00Z', 'updated_at.lt'],
      ['published_at.lte=2026-01-01T00:00:00%2B24:00', 'published_at.lte'],
      ['published_at.gt=1700000000000', 'published_at.gt'],
      ['version=0', 'version'],
      ['version.gte=-1', 'version.gte'],
      ['version.lt=abc', 'version.lt'],
      ['version.lte=2147483648', 'version.lte'],
      ['version=1.0', 'version'],
      ['name=', 'name'],
      ['name.contains=', 'name.contains'],
      ['external_id=a,,b', 'external_id'],
      [`external_id.in=${Array.from({ length: 101 }, (_, i) => `x${i}`).join(',')}`, 'external_id.in'],
      ['status=live', 'status'],
      ['status=', 'status'],
      ['has_scheduled_version=yes', 'has_scheduled_version'],
      ['has_scheduled_version=1', 'has_scheduled_version'],
      ['search=', 'search'],
      ['search=%20%20', 'search'],
      [`search=${'x'.repeat(201)}`, 'search'],
      ['tag=', 'tag'],
      ['name=Growth&name=Zeta', 'name'],
      ['version.gt=1&version.gt=2', 'version.gt'],
      ['status=draft&status=active', 'status'],
      ['search=a&search=b', 'search'],
      ['name=Growth&name.eq=Zeta', 'name.eq'],
      ['external_id=a,b&external_id.in=c', 'external_id.in'],
    ];
    for (const [query, param] of refused) {
      const response = await api.get(`/v1/plans?${query}`);
      expect({ query, status: response.status, code: response.body.error?.code, param: response.body.error?.param }).toEqual({
        query,
        status: 400,
        code: 'INVALID_FILTER',
        param,
      });
      expect(response.body.error.request_id).toBe(response.headers['request-id']);
    }
    // A NUL character is refused once, before any route reads the query (issue 19), naming the field.
    const nul = await api.get('/v1/plans?name=nul%00');
    expect([nul.status, nul.body.error.code, nul.body.error.param, nul.body.error.errors?.[0]?.code]).toEqual([
      400,
      'VALIDATION_ERROR',
      'name',
      'INVALID_CHARACTER',
    ]);
  });

  it('refuses an unknown sort (version included) with INVALID_SORT, and an unknown countable with VALIDATION_ERROR', async () => {
    for (const sort of ['version', 'version:desc', 'updated_at', 'name:up', 'NAME', 'name,status', '', '-created_at']) {
      const response = await api.get(`/v1/plans?sort=${encodeURIComponent(sort)}`);
      expect({ sort, status: response.status, code: response.body.error?.code, param: response.body.error?.param }).toEqual({
        sort,
        status: 400,
        code: 'INVALID_SORT',
        param: 'sort',
      });
    }
    expectError(await api.get('/v1/plans?sort=name&sort=status'), 400, 'INVALID_SORT');
    for (const counts of ['tags', 'version', '', 'status,name']) {
      const response = await api.get(`/v1/plans?counts=${counts}`);
      expect({ counts, status: response.status, code: response.body.error?.code, param: response.body.error?.param }).toEqual({
        counts,
        status: 400,
        code: 'VALIDATION_ERROR',
        param: 'counts',
      });
    }
  });

  it('shows a tenant its own workspace only: other organizations, other workspaces and the sandbox see nothing of it', async () => {
    const stranger = await createTenant(t);
    const strangers = new CatalogClient(t, stranger.auth);
    const theirs = (
      await strangers.post('/v1/plans', {
        name: 'Growth',
        external_id: 'crm-growth',
        tags: ['eu'],
        custom_fields: { region: 'eu' },
      })
    ).body;
    const mine = Object.values(plans).map((plan) => plan.id);
    for (const query of [
      '',
      'name=Growth',
      'external_id=crm-growth',
      'search=growth',
      'tag=eu',
      'custom_fields.region=eu',
      'sort=name',
      'counts=status',
    ]) {
      const response = await strangers.get(`/v1/plans?limit=200&${query}`);
      expect(response.status).toBe(200);
      expect({ query, ids: response.body.data.map((plan: any) => plan.id) }).toEqual({ query, ids: [theirs.id] });
      if (query === 'counts=status')
        expect(response.body.counts.status).toEqual({ draft: 1, scheduled: 0, active: 0, archived: 0 });
      const own = await api.get(`/v1/plans?limit=200&${query}`);
      expect(own.body.data.map((plan: any) => plan.id)).not.toContain(theirs.id);
    }
    // A sandbox key of the same organization lists the sandbox workspace's plans: none of the live ones.
    const sandbox = await t.http.get('/v1/plans?limit=200&counts=status').set('Authorization', tenant.sandboxAuth);
    expect(sandbox.status).toBe(200);
    expect(sandbox.body.data).toEqual([]);
    expect(sandbox.body.counts.status).toEqual({ draft: 0, scheduled: 0, active: 0, archived: 0 });
    const sandboxPlan = (await new CatalogClient(t, tenant.sandboxAuth).post('/v1/plans', { name: 'Sandbox growth' })).body;
    expect((await names('search=growth')).length).toBe(5);
    expect((await api.get(`/v1/plans?name=Sandbox%20growth`)).body.data).toEqual([]);
    expect(mine).not.toContain(sandboxPlan.id);
    // A cursor of one tenant's list positions another's list in its own rows only.
    const page = await api.get('/v1/plans?limit=1&sort=name');
    const foreign = await strangers.get(`/v1/plans?sort=name&cursor=${page.body.pagination.cursor}`);
    expect(foreign.status).toBe(200);
    expect(foreign.body.data.map((plan: any) => plan.id)).toEqual([theirs.id]);
    // The plans:read scope is required.
    expectError(await t.http.get('/v1/plans'), 401, 'UNAUTHENTICATED');
  });

  it('saves and sorts a plan whose description is longer than a btree entry (sorted by its first 500 characters)', async () => {
    // Random text: PostgreSQL would compress a repetitive one below the limit.
    const text = `~${randomBytes(4000).toString('base64').slice(0, 4998)}`;
    const long = await api.post('/v1/plans', { name: 'Long description', description: `${text}z` });
    expect(long.status).toBe(201);
    const twin = await api.post('/v1/plans', { name: 'Long description twin', description: `${text}a` });
    expect(twin.status).toBe(201);
    // The same first 500 characters: ordered by id (creation order) both ways, after every other described plan.
    const ascending = await names('sort=description&name.contains=Long');
    expect(ascending).toEqual(['Long description', 'Long description twin']);
    expect(await names('sort=description:desc&name.contains=Long')).toEqual(['Long description twin', 'Long description']);
    expect((await all('sort=description', 2)).names.slice(-4, -2)).toEqual(['Long description', 'Long description twin']);
    for (const plan of [long.body, twin.body]) expect((await api.delete(`/v1/plans/${plan.id}`)).status).toBe(204);
  });
});

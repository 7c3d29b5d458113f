// The plan list at scale (quality bars P5 and P13 for plans): GET /v1/plans listed, searched and
// filtered, first page and a deep page (page 10; the search's last page), with BENCH_PLANS_LARGE
// (1,000,000) plans in one workspace against BENCH_PLANS_SMALL (10,000) in another workspace of the
// same database, both seeded by SQL and measured in alternating rounds; each ratio ≤ 1.5×. Then
// the plan PostgreSQL chooses for each measured page, and for every filter and sort alone, at the
// large scale: the plan nodes, and no sequential scan of plans.
const { randomBytes } = require('node:crypto');
const { join } = require('node:path');
const { Client } = require('pg');
const { report } = require('./lib/report');
const { freePort, scratchDatabase } = require('./lib/scratch-database');
const { rootKeyFrom, startServer } = require('./lib/server');

// The app's own grammar and statement: EXPLAIN sees exactly the SQL the route runs.
const dist = join(__dirname, '../dist/apps/api/libs/catalog/src');
const { parsePlanListQuery } = require(join(dist, 'domain/plan-filters'));
const { planListStatement, positionOf } = require(join(dist, 'application/plans/plan-list'));

const SMALL = Number(process.env.BENCH_PLANS_SMALL ?? 10_000);
const LARGE = Number(process.env.BENCH_PLANS_LARGE ?? 1_000_000);
const SAMPLES = Number(process.env.BENCH_LATENCY_SAMPLES ?? 120);
/** Plans whose name holds "zebra" in each workspace, whatever its size: 1 exact, 99 prefix, 100 substring. */
const ZEBRAS = 200;
const PAGE = 50;
const DEEP = 10;

const log = (message) => console.log(`[plans ${new Date().toISOString().slice(11, 19)}] ${message}`);

/** The measured lists: [label, query]. */
const LISTS = [
  ['list (newest first)', ''],
  ['search "zebra" (ranked)', 'search=zebra'],
  ['filtered: status=active&tag=t3, sort=name', 'status=active&tag=t3&sort=name'],
  ['filtered: custom_fields.region=eu&version.gte=2', 'custom_fields.region=eu&version.gte=2'],
  [
    'filtered: has_scheduled_version=false&status=draft,archived, sort=status:desc',
    'has_scheduled_version=false&status=draft,archived&sort=status:desc',
  ],
  ['sorted: description:desc (undescribed last)', 'sort=description:desc'],
  ['filtered: name.contains=zebra, sort=name', 'name.contains=zebra&sort=name'],
];

/** Status counts, over the whole workspace and over a filter's matches: [label, query]. */
const COUNTED = [
  ['every plan counted by status', 'counts=status'],
  ['the matches of tag=t3 counted', 'counts=status&tag=t3'],
];

/** Every filter and sort alone, for the plan it gets at the large scale. */
const PROBES = [
  'sort=created_at:asc',
  'sort=name',
  'sort=name:desc',
  'sort=status',
  'sort=description',
  'sort=description:desc',
  'created_at.gte=@recent',
  'created_at.lt=@old',
  'updated_at.gt=@recent',
  'updated_at.lte=@old',
  'published_at.gte=@recent',
  'version=5',
  'version.gt=3',
  'external_id=ext-777',
  'external_id.in=ext-777,ext-778,ext-779',
  'name=zebra',
  'name.in=zebra,Zebra 2',
  'name.contains=zebra',
  'custom_fields.region=apac',
  'custom_fields.tier.in=1,3',
  'status=archived',
  'tag=t7',
  'has_scheduled_version=true',
  'search=zebra&sort=created_at',
  'search=ext-77',
];

function client(base, auth, workspace) {
  return async (path) => {
    const headers = { authorization: auth };
    if (workspace) headers['x-workspace-id'] = workspace;
    const response = await fetch(`${base}${path}`, { headers });
    const text = await response.text();
    if (!response.ok) throw new Error(`GET ${path}: ${response.status} ${text}`);
    return JSON.parse(text);
  };
}

async function post(base, auth, path, body) {
  const response = await fetch(`${base}${path}`, {
    method: 'POST',
    headers: { authorization: auth, 'content-type': 'application/json', 'idempotency-key': randomBytes(12).toString('hex') },
    body: JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`POST ${path}: ${response.status} ${await response.text()}`);
  return response.json();
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

async function timed(fn) {
  const started = performance.now();
  await fn();
  return performance.now() - started;
}

/**
 * Seeds `total` plans in a workspace by SQL, in batches: 20% active (each with its live version
 * row), 10% archived, the rest drafts; 25% without description, 10% without external_id; one tag
 * t0–t9; custom fields region (eu, us, apac, latam) and tier (0–4); 1% with a release queued;
 * (each drawn from its own digits of the row number, so that filters combine independently);
 * ZEBRAS plans spread evenly whose name holds "zebra" (the rest are hexadecimal names, which never do).
 */
async function seedPlans(sql, tenant, total) {
  log(`seeding ${total} plans in workspace ${tenant.workspace_id}`);
  const spacing = Math.floor(total / ZEBRAS);
  for (let start = 1; start <= total; start += 50_000) {
    const end = Math.min(total, start + 49_999);
    await sql.query(
      `WITH rows AS (
         SELECT g, gen_random_uuid() AS id, now() - (($4::int - g) || ' seconds')::interval AS created_at,
                CASE WHEN g % 10 IN (0, 1) THEN 'active' WHEN g % 10 = 9 THEN 'archived' ELSE 'draft' END AS status,
                CASE WHEN g % $5::int = 0 AND g / $5::int <= $6::int THEN g / $5::int END AS zebra
           FROM generate_series($2::int, $3::int) g),
       made AS (
         INSERT INTO plans (organization_id, workspace_id, id, name, description, external_id, custom_fields, tags, status, version,
                            head_version_id, next_version_no, next_release_at, published_at, archived_at, created_at, updated_at)
         SELECT $1::uuid, $7::uuid, id,
                CASE WHEN zebra = 1 THEN 'zebra' WHEN zebra <= 100 THEN 'Zebra ' || zebra WHEN zebra IS NOT NULL THEN 'Plan ' || zebra || ' zebra'
                     ELSE 'Plan ' || substr(md5(g::text || $4::text), 1, 12) END,
                CASE WHEN g % 4 = 0 THEN NULL ELSE 'Desc ' || substr(md5(g::text), 1, 10) END,
                CASE WHEN g % 10 = 5 THEN NULL ELSE 'ext-' || g END,
                jsonb_build_object('region', (ARRAY['eu', 'us', 'apac', 'latam'])[(g / 10) % 4 + 1], 'tier', (g / 40) % 5),
                ARRAY['t' || ((g / 200) % 10)],
                status, CASE WHEN status = 'active' THEN 1 + (g / 2000) % 5 ELSE 1 END,
                CASE WHEN status = 'active' THEN gen_random_uuid() END, 2,
                CASE WHEN (g / 7) % 100 = 7 THEN now() + interval '30 days' END,
                CASE WHEN status = 'active' THEN created_at + interval '1 hour' END,
                CASE WHEN status = 'archived' THEN created_at + interval '2 hours' END,
                created_at, created_at + ((g % 1000) || ' minutes')::interval
           FROM rows
         RETURNING organization_id, workspace_id, id, name, version, head_version_id, published_at, created_at)
       INSERT INTO plan_versions (organization_id, workspace_id, plan_id, id, version, status, origin, content_hash, effective_from,
                                  published_at, created_by, created_at, touched_at, name, price_cadence_unit)
       SELECT organization_id, workspace_id, id, head_version_id, version, 'published', 'manual', 'bench', published_at, published_at,
              '{"type":"system","id":null}', created_at, created_at, name, 'month'
         FROM made WHERE head_version_id IS NOT NULL`,
      [tenant.organization_id, start, end, total, spacing, ZEBRAS, tenant.workspace_id],
    );
  }
}

/** Resolves the @recent and @old placeholders of a probe to instants near the newest and oldest plans. */
function probeQuery(query) {
  return query
    .replace('@recent', new Date(Date.now() - 3_600_000).toISOString())
    .replace('@old', new Date(Date.now() - 86_400_000 * 11).toISOString());
}

/** The position after `pages` full pages, walked with the app's own statement. */
async function positionAfter(sql, actor, criteria, pages) {
  let after;
  for (let page = 0; page < pages; page += 1) {
    const { sql: text, values } = planListStatement(actor, criteria, after, PAGE + 1);
    const { rows } = await sql.query(text, values);
    if (rows.length <= PAGE) return { after, page };
    after = positionOf(criteria, rows[PAGE - 1]);
  }
  return { after, page: pages };
}

/** EXPLAIN ANALYZE of the page statement: its nodes (with index names), rows and buffers. */
async function explain(sql, actor, query, after) {
  const { criteria } = parsePlanListQuery(Object.fromEntries(new URLSearchParams(query)));
  const { sql: text, values } = planListStatement(actor, criteria, after, PAGE + 1);
  const { rows } = await sql.query(`EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) ${text}`, values);
  const root = rows[0]['QUERY PLAN'][0];
  const nodes = [];
  const walk = (node) => {
    const on = node['Index Name'] ? ` on ${node['Index Name']}` : node['Relation Name'] ? ` on ${node['Relation Name']}` : '';
    nodes.push(`${node['Node Type']}${on}`);
    for (const child of node.Plans ?? []) walk(child);
  };
  walk(root.Plan);
  const buffers = root.Plan['Shared Hit Blocks'] + root.Plan['Shared Read Blocks'];
  return { nodes, ms: root['Execution Time'], buffers, seqScan: nodes.some((node) => node === 'Seq Scan on plans') };
}

/** The URL of a first page and of a deep page (page DEEP, or the last page when there are fewer). */
async function pages(get, query) {
  const first = `/v1/plans?limit=${PAGE}${query ? `&${query}` : ''}`;
  let deep = first;
  let page = await get(first);
  let depth = 1;
  while (depth < DEEP && page.pagination.cursor) {
    deep = `${first}&cursor=${page.pagination.cursor}`;
    page = await get(deep);
    depth += 1;
  }
  return { first, deep, depth };
}

/** Median latency of each URL, the small and the large workspace in alternating rounds (drift falls on both alike). */
async function alternating(targets, count = SAMPLES) {
  const samples = targets.map(() => []);
  for (const { get, url } of targets) await get(url); // warm
  for (let round = 0; round < 3; round += 1) {
    for (const [index, { get, url }] of targets.entries()) {
      for (let i = 0; i < count / 3; i += 1) samples[index].push(await timed(() => get(url)));
    }
  }
  return samples.map(median);
}

async function main() {
  const database = await scratchDatabase('plans');
  // A free port: other benchmarks may be running on this machine.
  const server = await startServer({ databaseUrl: database.url, port: Number(process.env.BENCH_PORT ?? (await freePort())) });
  const sql = new Client({ connectionString: database.url });
  await sql.connect();
  try {
    // The first-start banner may follow the first ready answer by a moment.
    for (let i = 0; i < 100 && !/sk_live_\w{49}/.test(server.output()); i += 1)
      await new Promise((resolve) => setTimeout(resolve, 50));
    const auth = `Bearer ${rootKeyFrom(server.output())}`;
    const { rows } = await sql.query(`SELECT organization_id, id AS workspace_id FROM workspaces WHERE mode = 'live' LIMIT 1`);
    const large = rows[0];
    const smallId = (await post(server.base, auth, '/v1/workspaces', { name: 'bench small', slug: 'bench-small', mode: 'live' }))
      .id;
    const small = { organization_id: large.organization_id, workspace_id: smallId };
    const started = performance.now();
    // The status-count trigger upserts one row per plan: a million of them in one statement pile
    // versions of the same counter row (quadratic). Seed without it, then count once.
    await sql.query('ALTER TABLE plans DISABLE TRIGGER plan_status_counts_rows');
    await seedPlans(sql, small, SMALL);
    await seedPlans(sql, large, LARGE);
    await sql.query('ALTER TABLE plans ENABLE TRIGGER plan_status_counts_rows');
    await sql.query(`DELETE FROM plan_status_counts WHERE organization_id = $1`, [large.organization_id]);
    await sql.query(
      `INSERT INTO plan_status_counts (organization_id, workspace_id, status, plans)
       SELECT organization_id, workspace_id, status, count(*) FROM plans WHERE organization_id = $1 AND deleted_at IS NULL GROUP BY 1, 2, 3`,
      [large.organization_id],
    );
    await sql.query('VACUUM ANALYZE plans');
    await sql.query('VACUUM ANALYZE plan_versions');
    log(`seeded in ${((performance.now() - started) / 1000).toFixed(0)} s`);

    const gets = { small: client(server.base, auth, smallId), large: client(server.base, auth) };
    const actors = {
      small: { organizationId: small.organization_id, workspaceId: small.workspace_id },
      large: { organizationId: large.organization_id, workspaceId: large.workspace_id },
    };
    const rowsOut = [];
    const plans = [];
    for (const [label, query] of LISTS) {
      const urls = { small: await pages(gets.small, query), large: await pages(gets.large, query) };
      const [smallFirst, largeFirst, smallDeep, largeDeep] = await alternating([
        { get: gets.small, url: urls.small.first },
        { get: gets.large, url: urls.large.first },
        { get: gets.small, url: urls.small.deep },
        { get: gets.large, url: urls.large.deep },
      ]);
      const depth = Math.min(urls.small.depth, urls.large.depth);
      for (const [page, smallMs, largeMs] of [
        ['first page', smallFirst, largeFirst],
        [`page ${depth}`, smallDeep, largeDeep],
      ]) {
        rowsOut.push({
          figure: `GET /v1/plans ${label}, ${page}: ${LARGE} plans vs ${SMALL}`,
          value: largeMs,
          unit: 'ms',
          reference: smallMs,
          ratio: largeMs / smallMs,
          bar: '≤ 1.5×',
          pass: largeMs / smallMs <= 1.5,
        });
      }
      const { criteria } = parsePlanListQuery(Object.fromEntries(new URLSearchParams(query)));
      for (const size of ['small', 'large']) {
        const deep = await positionAfter(sql, actors[size], criteria, depth - 1);
        for (const [page, after] of [
          ['first', undefined],
          [`page ${deep.page + 1}`, deep.after],
        ]) {
          const plan = await explain(sql, actors[size], query, after);
          plans.push({ label, size, page, ...plan });
          log(`${label} [${size}, ${page}]: ${plan.ms.toFixed(2)} ms, ${plan.buffers} buffers: ${plan.nodes.join(' → ')}`);
        }
      }
      log(
        `${label}: first ${smallFirst.toFixed(2)} vs ${largeFirst.toFixed(2)} ms; page ${depth} ${smallDeep.toFixed(2)} vs ${largeDeep.toFixed(2)} ms`,
      );
    }
    // Status counts are facets over every match (not a page): they cost what the matches do, so
    // they are a figure to watch, not a P5 bar.
    for (const [label, query] of COUNTED) {
      const [smallMs, largeMs] = await alternating(
        [
          { get: gets.small, url: `/v1/plans?${query}` },
          { get: gets.large, url: `/v1/plans?${query}` },
        ],
        15,
      );
      rowsOut.push({
        figure: `GET /v1/plans?${query} (${label}): ${LARGE} plans vs ${SMALL}`,
        value: largeMs,
        unit: 'ms',
        reference: smallMs,
        ratio: largeMs / smallMs,
      });
      log(`counts ${query}: ${smallMs.toFixed(2)} vs ${largeMs.toFixed(2)} ms`);
    }
    const probes = [];
    for (const probe of PROBES) {
      const plan = await explain(sql, actors.large, probeQuery(probe), undefined);
      probes.push({ probe, ...plan });
      log(`probe ${probe} at ${LARGE}: ${plan.ms.toFixed(2)} ms, ${plan.buffers} buffers: ${plan.nodes.join(' → ')}`);
    }
    const seqScans = [...plans, ...probes].filter((plan) => plan.seqScan);
    rowsOut.push({
      figure: `page plans at ${LARGE} plans (${plans.length / 2} measured pages, ${PROBES.length} single filters and sorts): sequential scans of plans`,
      value: seqScans.length,
      bar: '0',
      pass: seqScans.length === 0,
    });
    for (const probe of probes) {
      rowsOut.push({
        figure: `plan of ${probe.probe} at ${LARGE}: ${probe.nodes.join(' → ')}`,
        value: probe.ms,
        unit: 'ms (EXPLAIN ANALYZE)',
      });
    }
    report('plans', rowsOut);
  } finally {
    await sql.end();
    await server.stop();
    await database.drop();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});

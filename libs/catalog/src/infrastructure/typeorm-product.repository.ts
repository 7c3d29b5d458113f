import { TransactionHost } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { Injectable } from '@nestjs/common';
import { isUuid, preparedQuery, SqlWrite } from '@app/shared-kernel';
import { CostValue } from '../domain/cost-value';
import { CostEntry, MaterializedCost, Product, ProductContent, ProductCost } from '../domain/product';
import { ProductRepository, TenantKey } from '../domain/repositories';
import { VersionRow } from '../application/version-views';
import { toVersionRecord, VERSION_COLUMNS, versionUpserts } from './version-rows';
import { costRevisionInsert, costUpsert } from './cost-rows';
import { CatalogEvents, ReadEvent } from '../application/catalog-events';
import { GetProductVersionQuery } from '../application/products/get-product-version.query';
import { changeEvents, unreportedTransitions } from './version-events';

interface ProductRow {
  id: string;
  name: string;
  description: string | null;
  metadata: Record<string, unknown>;
  status: 'draft' | 'active' | 'archived';
  next_version_no: number;
  published_at: Date | null;
  archived_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

interface ContentRow extends VersionRow {
  price_expression: string | null;
  not_before: Date | null;
}

interface EntryRow {
  product_version_id: string;
  key: string;
  cost_id: string;
  revision_no: number;
  amount: string | null;
  expression: string | null;
  references: string[];
}

interface CostRow {
  id: string;
  key: string;
  state: ProductCost['state'];
  description: string | null;
  metadata: Record<string, unknown>;
  translations: Record<string, unknown>;
  requires_continuous_coverage: boolean;
  current_revision_no: number;
  released: boolean;
  created_at: Date;
  updated_at: Date;
}

function entryValue(row: { amount: string | null; expression: string | null; references: string[] }): CostValue {
  return row.expression === null
    ? { kind: 'amount', amount: row.amount!, expression: null, references: [] }
    : { kind: 'expression', amount: null, expression: row.expression, references: row.references };
}

/** A version's cost rows in one statement (empty: none). */
function versionCostsInsert(
  tenantValues: unknown[],
  versionId: string,
  rows: (Omit<MaterializedCost, 'value'> & { value: string | null })[],
): SqlWrite[] {
  if (rows.length === 0) return [];
  return [
    {
      text: `INSERT INTO product_version_costs (organization_id, workspace_id, product_version_id, key, cost_id, scope, revision_no, kind, expression, value)
             SELECT $1, $2, $3, * FROM unnest($4::text[], $5::uuid[], $6::text[], $7::int[], $8::text[], $9::text[], $10::numeric[])`,
      values: [
        ...tenantValues,
        versionId,
        rows.map((row) => row.key),
        rows.map((row) => row.costId),
        rows.map((row) => row.scope),
        rows.map((row) => row.revisionNo),
        rows.map((row) => row.kind),
        rows.map((row) => row.expression),
        rows.map((row) => row.value),
      ],
    },
  ];
}

@Injectable()
export class TypeOrmProductRepository extends ProductRepository {
  constructor(
    private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>,
    private readonly events: CatalogEvents,
  ) {
    super();
  }

  async lock(tenant: TenantKey, productId: string): Promise<Product | undefined> {
    if (!isUuid(productId)) return undefined;
    const params = [tenant.organizationId, tenant.workspaceId, productId];
    const [row] = await this.query<ProductRow>(
      `SELECT id, name, description, metadata, status, next_version_no, published_at, archived_at, created_at, updated_at
         FROM products WHERE organization_id = $1 AND workspace_id = $2 AND id = $3 FOR UPDATE`,
      params,
    );
    if (!row) return undefined;
    // The rows that can still change, and the draft's base (which may have been superseded since).
    const versions = await this.query<ContentRow>(
      `SELECT ${VERSION_COLUMNS.join(', ')}, price_expression, not_before FROM product_versions v
        WHERE organization_id = $1 AND workspace_id = $2 AND product_id = $3
          AND (status <> 'archived' OR id IN (SELECT base_version_id FROM product_versions
                WHERE organization_id = $1 AND workspace_id = $2 AND product_id = $3 AND status = 'draft'))`,
      params,
    );
    const entries = await this.query<EntryRow>(
      `SELECT e.product_version_id, e.key, e.cost_id, e.revision_no, r.amount::text AS amount, r.expression, r."references"
         FROM product_version_costs e
         JOIN cost_revisions r ON r.organization_id = e.organization_id AND r.workspace_id = e.workspace_id
          AND r.cost_id = e.cost_id AND r.revision_no = e.revision_no
        WHERE e.organization_id = $1 AND e.workspace_id = $2 AND e.scope = 'PRODUCT' AND e.product_version_id = ANY($3::uuid[])
        ORDER BY e.key`,
      [tenant.organizationId, tenant.workspaceId, versions.map((version) => version.id)],
    );
    // The correlated EXISTS names the organization by its parameter ($1): Citus routes it to one shard only so.
    const costs = await this.query<CostRow>(
      `SELECT c.id, c.key, c.state, c.description, c.metadata, c.translations, c.requires_continuous_coverage,
              c.current_revision_no, c.created_at, c.updated_at,
              EXISTS (SELECT 1 FROM product_version_costs e JOIN product_versions v
                        ON v.organization_id = e.organization_id AND v.workspace_id = e.workspace_id AND v.id = e.product_version_id
                       WHERE e.organization_id = $1 AND e.workspace_id = c.workspace_id AND e.cost_id = c.id
                         AND v.status <> 'draft') AS released
         FROM costs c
        WHERE c.organization_id = $1 AND c.workspace_id = $2 AND c.product_id = $3 AND c.scope = 'PRODUCT'`,
      params,
    );
    const contents = new Map<string, ProductContent>(
      versions.map((version) => [
        version.id,
        {
          priceExpression: version.price_expression,
          notBefore: version.not_before,
          entries: entries
            .filter((entry) => entry.product_version_id === version.id)
            .map((entry): CostEntry => ({
              key: entry.key,
              costId: entry.cost_id,
              revisionNo: entry.revision_no,
              value: entryValue(entry),
            })),
        },
      ]),
    );
    return Product.restore({
      state: {
        organizationId: tenant.organizationId,
        workspaceId: tenant.workspaceId,
        id: row.id,
        details: { name: row.name, description: row.description, metadata: row.metadata },
        status: row.status,
        publishedAt: row.published_at,
        archivedAt: row.archived_at,
        createdAt: row.created_at,
        updatedAt: row.updated_at,
      },
      nextVersionNo: row.next_version_no,
      versions: versions.map(toVersionRecord),
      contents,
      costs: costs.map((cost) => ({
        id: cost.id,
        key: cost.key,
        state: cost.state,
        display: {
          description: cost.description,
          metadata: cost.metadata,
          translations: cost.translations,
          requiresContinuousCoverage: cost.requires_continuous_coverage,
        },
        currentRevisionNo: cost.current_revision_no,
        released: cost.released,
        createdAt: cost.created_at,
        updatedAt: cost.updated_at,
      })),
    });
  }

  async save(product: Product): Promise<void> {
    const s = product.snapshot;
    const tenant = { organizationId: s.organizationId, workspaceId: s.workspaceId };
    const writes = product.pendingWrites;
    const tenantValues = [s.organizationId, s.workspaceId];
    const steps: SqlWrite[] = [
      {
        text: `INSERT INTO products (organization_id, workspace_id, id, name, description, metadata, status, head_version_id,
                 draft_version_id, next_version_no, next_release_at, published_at, archived_at, created_at, updated_at)
               VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)
               ON CONFLICT (organization_id, workspace_id, id) DO UPDATE SET name = EXCLUDED.name, description = EXCLUDED.description,
                 metadata = EXCLUDED.metadata, status = EXCLUDED.status, head_version_id = EXCLUDED.head_version_id,
                 draft_version_id = EXCLUDED.draft_version_id, next_version_no = EXCLUDED.next_version_no,
                 next_release_at = EXCLUDED.next_release_at, published_at = EXCLUDED.published_at,
                 archived_at = EXCLUDED.archived_at, updated_at = EXCLUDED.updated_at`,
        values: [
          ...tenantValues,
          s.id,
          s.details.name,
          s.details.description,
          JSON.stringify(s.details.metadata),
          s.status,
          product.line.head?.id ?? null,
          product.line.draft?.id ?? null,
          product.line.nextVersionNo,
          product.line.nextReleaseAt,
          s.publishedAt,
          s.archivedAt,
          s.createdAt,
          s.updatedAt,
        ],
      },
      ...writes.costs.map((cost) => costUpsert(tenant, { scope: 'PRODUCT', productId: s.id, ...cost, retiredAt: null })),
      ...writes.revisions.map((revision) => costRevisionInsert(tenant, revision)),
      ...versionUpserts('product_versions', tenant, 'product_id', s.id, writes.versions),
    ];
    const materialized = new Map(writes.materialized.map((result) => [result.versionId, result]));
    for (const { versionId, content } of writes.contents) {
      const fresh = product.line.isNew(versionId);
      const live = materialized.get(versionId);
      // A version going live gets all its rows (PRODUCT ones included) from its materialization below.
      if (!fresh || !live) {
        steps.push({
          text: `DELETE FROM product_version_costs WHERE organization_id = $1 AND workspace_id = $2 AND product_version_id = $3${live ? '' : " AND scope = 'PRODUCT'"}`,
          values: [...tenantValues, versionId],
        });
      }
      if (!content) continue;
      steps.push({
        text: `UPDATE product_versions SET price_expression = $4, not_before = $5, unit_price = $6
                WHERE organization_id = $1 AND workspace_id = $2 AND id = $3`,
        values: [...tenantValues, versionId, content.priceExpression, content.notBefore, live?.unitPrice ?? null],
      });
      if (!live) {
        steps.push(
          ...versionCostsInsert(
            tenantValues,
            versionId,
            content.entries.map((entry) => ({
              key: entry.key,
              costId: entry.costId,
              scope: 'PRODUCT' as const,
              revisionNo: entry.revisionNo,
              kind: entry.value.kind,
              expression: entry.value.expression,
              value: null,
            })),
          ),
        );
      }
    }
    const written = new Set(writes.contents.map((written) => written.versionId));
    for (const { versionId, unitPrice, costs } of writes.materialized) {
      if (!written.has(versionId)) {
        steps.push(
          {
            text: `UPDATE product_versions SET unit_price = $4 WHERE organization_id = $1 AND workspace_id = $2 AND id = $3`,
            values: [...tenantValues, versionId, unitPrice],
          },
          {
            text: `DELETE FROM product_version_costs WHERE organization_id = $1 AND workspace_id = $2 AND product_version_id = $3`,
            values: [...tenantValues, versionId],
          },
        );
      }
      steps.push(...versionCostsInsert(tenantValues, versionId, costs));
    }
    for (const costId of writes.deletedCosts) {
      steps.push({
        text: `DELETE FROM costs WHERE organization_id = $1 AND workspace_id = $2 AND id = $3`,
        values: [...tenantValues, costId],
      });
    }
    // One statement after the other: later steps read what earlier ones wrote (foreign keys, unique slots).
    for (const step of steps) await preparedQuery(this.txHost.tx, step.text, [...step.values]);
    // Whatever brought a version live (publish now, a fired release, a cascade), in this transaction, then the changes settled.
    const transitions = unreportedTransitions(product.line);
    await this.events.publish(tenant, [
      ...transitions
        .filter((row) => row.status === 'published')
        .map((row): ReadEvent => ({
          type: 'product.version.published',
          read: (reader) => new GetProductVersionQuery(reader, row.id),
        })),
      ...changeEvents(transitions),
    ]);
  }

  async versionExists(tenant: TenantKey, productId: string, versionId: string): Promise<boolean> {
    if (!isUuid(versionId)) return false;
    const rows = await this.query(
      `SELECT 1 FROM product_versions WHERE organization_id = $1 AND workspace_id = $2 AND id = $3 AND product_id = $4`,
      [tenant.organizationId, tenant.workspaceId, versionId, productId],
    );
    return rows.length > 0;
  }

  async headContent(tenant: TenantKey, versionId: string): Promise<ProductContent> {
    const [version] = await this.query<{ price_expression: string | null; not_before: Date | null }>(
      `SELECT price_expression, not_before FROM product_versions WHERE organization_id = $1 AND workspace_id = $2 AND id = $3`,
      [tenant.organizationId, tenant.workspaceId, versionId],
    );
    const entries = await this.query<EntryRow>(
      `SELECT e.product_version_id, e.key, e.cost_id, e.revision_no, r.amount::text AS amount, r.expression, r."references"
         FROM product_version_costs e
         JOIN cost_revisions r ON r.organization_id = e.organization_id AND r.workspace_id = e.workspace_id
          AND r.cost_id = e.cost_id AND r.revision_no = e.revision_no
        WHERE e.organization_id = $1 AND e.workspace_id = $2 AND e.product_version_id = $3 AND e.scope = 'PRODUCT'
        ORDER BY e.key`,
      [tenant.organizationId, tenant.workspaceId, versionId],
    );
    return {
      priceExpression: version?.price_expression ?? null,
      notBefore: version?.not_before ?? null,
      entries: entries.map((entry) => ({
        key: entry.key,
        costId: entry.cost_id,
        revisionNo: entry.revision_no,
        value: entryValue(entry),
      })),
    };
  }

  async materializedVersion(
    tenant: TenantKey,
    versionId: string,
  ): Promise<{ unitPrice: string | null; costs: MaterializedCost[] }> {
    const [version] = await this.query<{ unit_price: string | null }>(
      `SELECT unit_price::text AS unit_price FROM product_versions WHERE organization_id = $1 AND workspace_id = $2 AND id = $3`,
      [tenant.organizationId, tenant.workspaceId, versionId],
    );
    const costs = await this.query<{
      key: string;
      cost_id: string;
      scope: 'ORG' | 'PRODUCT';
      revision_no: number;
      kind: 'amount' | 'expression';
      expression: string | null;
      value: string;
    }>(
      `SELECT key, cost_id, scope, revision_no, kind, expression, value::text AS value FROM product_version_costs
        WHERE organization_id = $1 AND workspace_id = $2 AND product_version_id = $3`,
      [tenant.organizationId, tenant.workspaceId, versionId],
    );
    return {
      unitPrice: version?.unit_price ?? null,
      costs: costs.map((row) => ({
        key: row.key,
        costId: row.cost_id,
        scope: row.scope,
        revisionNo: row.revision_no,
        kind: row.kind,
        expression: row.expression,
        value: row.value,
      })),
    };
  }

  async ownerOfCost(tenant: TenantKey, costId: string): Promise<string | undefined> {
    if (!isUuid(costId)) return undefined;
    const [row] = await this.query<{ product_id: string }>(
      `SELECT product_id FROM costs WHERE organization_id = $1 AND workspace_id = $2 AND id = $3 AND scope = 'PRODUCT'`,
      [tenant.organizationId, tenant.workspaceId, costId],
    );
    return row?.product_id;
  }

  private query<Row>(text: string, values: unknown[]): Promise<Row[]> {
    return preparedQuery<Row>(this.txHost.tx, text, values);
  }
}

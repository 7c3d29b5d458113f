import { Actor, isUuid } from '@app/shared-kernel';
import { EntityManager } from 'typeorm';
import { catalogNotFound } from '../../domain/catalog-errors';
import { MaterializedCostView, ProductVersionView, ProductView } from './product.views';
import { VersionLifecycleView, VersionRow } from '../version-views';

export interface ProductReadRow {
  id: string;
  name: string;
  description: string | null;
  metadata: Record<string, unknown>;
  status: ProductView['status'];
  head_version_id: string | null;
  head_version: number | null;
  unit_price: string | null;
  draft_version_id: string | null;
  draft_version: number | null;
  price_expression: string | null;
  next_release_at: Date | null;
  published_at: Date | null;
  archived_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

export const PRODUCT_SELECT = `
  SELECT p.id, p.name, p.description, p.metadata, p.status, p.head_version_id, h.version AS head_version, h.unit_price::text AS unit_price,
         p.draft_version_id, d.version AS draft_version, coalesce(d.price_expression, CASE WHEN d.id IS NULL THEN h.price_expression END) AS price_expression,
         p.next_release_at, p.published_at, p.archived_at, p.created_at, p.updated_at
    FROM products p
    LEFT JOIN product_versions h ON h.organization_id = p.organization_id AND h.workspace_id = p.workspace_id AND h.id = p.head_version_id
    LEFT JOIN product_versions d ON d.organization_id = p.organization_id AND d.workspace_id = p.workspace_id AND d.id = p.draft_version_id`;

export function productView(row: ProductReadRow): ProductView {
  return {
    object: 'product',
    id: row.id,
    name: row.name,
    description: row.description,
    metadata: row.metadata,
    status: row.status,
    price_expression: row.price_expression,
    unit_price: row.unit_price,
    version: row.head_version ?? 1,
    live_version: row.head_version_id ? { id: row.head_version_id, version: row.head_version! } : null,
    draft_version: row.draft_version_id ? { id: row.draft_version_id, version: row.draft_version! } : null,
    has_scheduled_version: row.next_release_at !== null,
    next_release_at: row.next_release_at,
    published_at: row.published_at,
    archived_at: row.archived_at,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

export function lifecycleView(row: VersionRow & { rank: number | null }): VersionLifecycleView {
  return {
    id: row.id,
    version: row.version,
    status: row.status,
    archived_reason: row.archived_reason,
    origin: row.origin,
    base_version_id: row.base_version_id,
    change_id: row.change_id,
    scheduled_change_id: row.status === 'scheduled' ? row.change_id : null,
    scheduled_for: row.scheduled_for,
    rank: row.status === 'scheduled' ? Number(row.rank) : null,
    effective_from: row.effective_from,
    effective_to: row.effective_to,
    published_at: row.published_at,
    release_name: row.release_name,
    release_note: row.release_note,
    cascade_source: row.cascade_source,
    created_by: row.created_by,
    created_at: row.created_at,
    error: row.error_code ? { code: row.error_code, message: row.error_message ?? '', details: row.error_details ?? {} } : null,
  };
}

export type VersionReadRow = VersionRow & {
  product_id: string;
  price_expression: string | null;
  unit_price: string | null;
  not_before: Date | null;
  rank: number | null;
  costs: MaterializedCostView[];
};

export function versionView(row: VersionReadRow): ProductVersionView {
  return {
    object: 'product_version',
    ...lifecycleView(row),
    product_id: row.product_id,
    price_expression: row.price_expression,
    unit_price: row.unit_price,
    not_before: row.not_before,
    costs: row.costs,
  };
}

export async function assertProduct(manager: EntityManager, actor: Actor, productId: string) {
  const [product]: { head_version_id: string | null; draft_version_id: string | null }[] = isUuid(productId)
    ? await manager.query(
        `SELECT head_version_id, draft_version_id FROM products WHERE organization_id = $1 AND workspace_id = $2 AND id = $3`,
        [actor.organizationId, actor.workspaceId, productId],
      )
    : [];
  if (!product) throw catalogNotFound(undefined, 'product');
  return product;
}

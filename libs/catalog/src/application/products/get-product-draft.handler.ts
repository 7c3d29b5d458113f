import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { TransactionHost } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { GetProductDraftQuery, ProductDraftView } from './get-product-draft.query';
import { VersionReadRow, assertProduct } from './product-reads';
import { ProductVersionReads } from './product-version-reads';
import { CatalogErrors } from '../../domain/catalog-errors';

@QueryHandler(GetProductDraftQuery)
export class GetProductDraftHandler implements IQueryHandler<GetProductDraftQuery> {
  constructor(
    private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>,
    private readonly versions: ProductVersionReads,
  ) {}

  /** The staged draft with its diff from its base; 404 STAGED_DRAFT_NOT_FOUND is a state, not an error of the caller. */
  async execute({ actor, productId }: GetProductDraftQuery): Promise<ProductDraftView> {
    const product = await assertProduct(this.txHost.tx, actor, productId);
    const ids = [product.draft_version_id, product.head_version_id].filter((id): id is string => id !== null);
    const rows = product.draft_version_id ? await this.versions.draftWithBase(actor, ids, product.draft_version_id) : [];
    const draft = rows.find((row) => row.id === product.draft_version_id);
    if (!draft) throw CatalogErrors.STAGED_DRAFT_NOT_FOUND.create('This product has no staged draft.');
    const base = rows.find((row) => row.id === draft.base_version_id);
    const head = rows.find((row) => row.id === product.head_version_id);
    return {
      object: 'staged_draft',
      id: draft.id,
      product_id: productId,
      version: draft.version,
      opened_at: draft.created_at,
      updated_at: draft.touched_at,
      base_version_id: draft.base_version_id,
      base_version: base?.version ?? null,
      head_version: head?.version ?? null,
      not_before: draft.not_before,
      price_expression: draft.price_expression,
      summary: draftSummary(draft, base),
    };
  }
}

/** The diff from the base: what publishing this draft would change. */
function draftSummary(draft: VersionReadRow, base: VersionReadRow | undefined): ProductDraftView['summary'] {
  const own = (row: VersionReadRow | undefined) =>
    new Map((row?.costs ?? []).filter((cost) => cost.scope === 'PRODUCT').map((cost) => [cost.cost_id, cost]));
  const before = own(base);
  const after = own(draft);
  return {
    fields_changed: (base?.price_expression ?? null) !== draft.price_expression ? ['price_expression'] : [],
    costs_added: [...after.values()].filter((cost) => !before.has(cost.cost_id)).map((cost) => cost.key),
    costs_removed: [...before.values()].filter((cost) => !after.has(cost.cost_id)).map((cost) => cost.key),
    cost_values_changed: [...after.values()]
      .filter((cost) => before.has(cost.cost_id) && before.get(cost.cost_id)!.revision !== cost.revision)
      .map((cost) => cost.key),
  };
}

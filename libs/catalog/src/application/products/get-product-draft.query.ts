import { Query } from '@nestjs/cqrs';
import { Actor } from '@app/shared-kernel';

export class GetProductDraftQuery extends Query<ProductDraftView> {
  constructor(
    readonly actor: Actor,
    readonly productId: string,
  ) {
    super();
  }
}

export interface ProductDraftView {
  object: 'staged_draft';
  id: string;
  product_id: string;
  version: number;
  opened_at: Date;
  updated_at: Date;
  base_version_id: string | null;
  base_version: number | null;
  head_version: number | null;
  not_before: Date | null;
  price_expression: string | null;
  summary: { fields_changed: string[]; costs_added: string[]; costs_removed: string[]; cost_values_changed: string[] };
}

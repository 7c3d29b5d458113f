import { Product } from '../domain/product';

/** The content a staging edit will change: the open draft's, else the head's (a draft opens on it). */
export function workingContent(product: Product) {
  const draft = product.line.draft;
  const head = product.line.head;
  return (
    (draft && product.contentOf(draft.id)) ??
    (head && product.contentOf(head.id)) ?? { priceExpression: null, entries: [], notBefore: null }
  );
}

import { Actor, invalidParameter, SharedErrors } from '@app/shared-kernel';
import { catalogNotFound } from '../../domain/catalog-errors';
import { OrgCost } from '../../domain/org-cost';
import { Product } from '../../domain/product';
import { OrgCostRepository, ProductRepository } from '../../domain/repositories';
import { ProductReleases } from '../product-releases';

/** Exactly one of amount or expression (`required`: on create). */
export function valueInput(
  input: { amount?: string | null; expression?: string | null },
  required: boolean,
): { amount: string } | { expression: string } | null {
  const hasAmount = input.amount !== undefined && input.amount !== null;
  const hasExpression = input.expression !== undefined && input.expression !== null;
  if (hasAmount && hasExpression) {
    throw SharedErrors.VALIDATION_ERROR.create('Send either amount or expression, not both.', {
      param: 'expression',
      errors: [{ param: 'expression', code: 'MUTUALLY_EXCLUSIVE', message: 'amount and expression are mutually exclusive.' }],
    });
  }
  if (!hasAmount && !hasExpression) {
    if (!required) return null;
    throw invalidParameter('amount', 'REQUIRED', 'A cost needs an amount or an expression.');
  }
  if (hasExpression && (typeof input.expression !== 'string' || input.expression.trim() === '')) {
    throw invalidParameter('expression', 'INVALID_FORMAT', 'expression must be a non-empty formula.');
  }
  return hasAmount ? { amount: input.amount! } : { expression: input.expression!.trim() };
}

/** The ORG cost of this id, or the product owning this PRODUCT cost, loaded for a command; 404 otherwise. */
export async function loadCostOwner(
  actor: Actor,
  costId: string,
  orgCosts: OrgCostRepository,
  products: ProductRepository,
  releases: ProductReleases,
): Promise<{ org: OrgCost } | { product: Product }> {
  const org = await orgCosts.lock(actor, costId);
  if (org) return { org };
  const productId = await products.ownerOfCost(actor, costId);
  const product = productId && (await releases.load(actor, productId));
  if (!product || !product.cost(costId)) throw catalogNotFound(undefined, 'cost');
  return { product };
}

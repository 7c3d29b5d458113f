import { Actor, invalidParameter } from '@app/shared-kernel';
import { Product } from '../../domain/product';
import { createdByOf } from '../created-by';
import { workingContent } from '../working-content';
import { Pricing } from '../pricing';

export function assertName(name: unknown): string {
  if (typeof name !== 'string' || name.trim().length === 0 || name.length > 200) {
    throw invalidParameter('name', 'INVALID_FORMAT', 'name must be 1–200 characters.');
  }
  return name.trim();
}

/** A new price formula is checked in the scope of the content it will join (400/422 FORMULA_*). */
export async function stagePriceExpression(
  pricing: Pricing,
  actor: Actor,
  product: Product,
  expression: string | null,
  now: Date,
) {
  const text = expression === null ? null : expression.trim();
  if (text === '')
    throw invalidParameter('price_expression', 'INVALID_FORMAT', 'price_expression must be a formula, or null to clear it.');
  if (text !== null) await pricing.checkProductExpression(actor, workingContent(product), null, text, now);
  product.stagePriceExpression(text, now, createdByOf(actor));
}

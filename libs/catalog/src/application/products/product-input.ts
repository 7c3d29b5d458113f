export interface ProductInput {
  name?: string;
  description?: string | null;
  metadata?: Record<string, unknown> | null;
  priceExpression?: string | null;
  status?: string;
}

import { Command } from '@nestjs/cqrs';
import { Actor } from '@app/shared-kernel';

export interface CostInput {
  key?: unknown;
  amount?: string | null;
  expression?: string | null;
  description?: string | null;
  metadata?: Record<string, unknown> | null;
  translations?: Record<string, unknown> | null;
  /** Must be null (or, on the product route, the path's product). */
  productId?: string | null;
}

/** Commands answer the id of what they created or changed; the controller reads it back through a query. */
export class CreateCostCommand extends Command<string> {
  constructor(
    readonly actor: Actor,
    /** Absent: an ORG cost; present: a PRODUCT cost of that product (from the path). */
    readonly productId: string | undefined,
    readonly input: CostInput,
  ) {
    super();
  }
}

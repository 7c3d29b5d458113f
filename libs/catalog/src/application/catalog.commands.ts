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

export interface CostUpdateInput {
  amount?: string | null;
  expression?: string | null;
  description?: string | null;
  metadata?: Record<string, unknown> | null;
  translations?: Record<string, unknown> | null;
  requiresContinuousCoverage?: boolean | null;
  saveAsDraft?: boolean | null;
  effectiveAt?: Date | null;
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

export class UpdateCostCommand extends Command<string> {
  constructor(
    readonly actor: Actor,
    readonly costId: string,
    readonly input: CostUpdateInput,
  ) {
    super();
  }
}

export class RemoveCostCommand extends Command<void> {
  constructor(
    readonly actor: Actor,
    readonly costId: string,
  ) {
    super();
  }
}

export class RestoreCostCommand extends Command<string> {
  constructor(
    readonly actor: Actor,
    readonly costId: string,
  ) {
    super();
  }
}

export interface ProductInput {
  name?: string;
  description?: string | null;
  metadata?: Record<string, unknown> | null;
  priceExpression?: string | null;
  status?: string;
}

export class CreateProductCommand extends Command<string> {
  constructor(
    readonly actor: Actor,
    readonly input: ProductInput & { name: string },
  ) {
    super();
  }
}

export class UpdateProductCommand extends Command<string> {
  constructor(
    readonly actor: Actor,
    readonly productId: string,
    readonly input: ProductInput,
  ) {
    super();
  }
}

export class OpenProductDraftCommand extends Command<string> {
  constructor(
    readonly actor: Actor,
    readonly productId: string,
    readonly baseVersionId: string | undefined,
  ) {
    super();
  }
}

export class DiscardProductDraftCommand extends Command<void> {
  constructor(
    readonly actor: Actor,
    readonly productId: string,
  ) {
    super();
  }
}

export interface ChangeInput {
  subjectKind: 'plan' | 'product';
  subjectId: string;
  stagedVersionId: string;
  scheduledFor?: Date;
  pins?: { productId: string; productVersionId: string }[];
  releaseName?: string | null;
  releaseNote?: string | null;
}

export class CreateChangeCommand extends Command<string> {
  constructor(
    readonly actor: Actor,
    readonly input: ChangeInput,
  ) {
    super();
  }
}

export class CancelChangeCommand extends Command<{
  changeId: string;
  dependents: { id: string; version: number; status: string }[];
}> {
  constructor(
    readonly actor: Actor,
    readonly changeId: string,
  ) {
    super();
  }
}

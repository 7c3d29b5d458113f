import { Query } from '@nestjs/cqrs';
import { Actor, Page } from '@app/shared-kernel';
import { VerificationStatus, VerificationType } from '../../domain/customer-verification';
import { VerificationSummaryView } from './verification.view';

export interface VerificationFilters {
  customerId?: string;
  status?: VerificationStatus;
  verificationType?: VerificationType;
  /** created_at ≥ this. */
  occurredAfter?: Date;
  /** created_at < this. */
  occurredBefore?: Date;
}

export class ListVerificationsQuery extends Query<Page<VerificationSummaryView>> {
  constructor(
    readonly actor: Actor,
    readonly limit: number,
    readonly cursor: string | undefined,
    readonly filters: VerificationFilters,
  ) {
    super();
  }
}

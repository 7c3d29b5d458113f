import { DomainError } from '@app/shared-kernel';
import { WalletErrors } from '../../domain/wallet-errors';

/** An atomic batch with a refused item: nothing applied; `refusals` are the items' own refusals, in request order. */
export class BatchRejectedError extends DomainError {
  constructor(readonly refusals: ReadonlyArray<{ index: number; error: DomainError }>) {
    super(
      WalletErrors.BATCH_REJECTED.kind,
      WalletErrors.BATCH_REJECTED.code,
      `${refusals.length} item(s) of this atomic batch were refused; none was applied.`,
      {
        param: 'debits',
        details: { items: refusals.map(({ index, error }) => ({ index, code: error.code })) },
      },
    );
  }
}

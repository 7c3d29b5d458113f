import { isTransientWriteFailure, StaleWriteError } from './database-errors';

/** A driver error as pg raises it (TypeORM wraps it as driverError, with the same code and message). */
const pgError = (code: string, message: string) => Object.assign(new Error(message), { code });
const wrapped = (code: string, message: string) => Object.assign(new Error(message), { driverError: { code } });

describe('isTransientWriteFailure', () => {
  it('is true for what running the whole transaction again can get past', () => {
    expect(isTransientWriteFailure(new StaleWriteError('wallet w1'))).toBe(true);
    expect(isTransientWriteFailure(pgError('40001', 'could not serialize access due to concurrent update'))).toBe(true);
    expect(
      isTransientWriteFailure(wrapped('40P01', 'canceling the transaction since it was involved in a distributed deadlock')),
    ).toBe(true);
    expect(isTransientWriteFailure(pgError('55P03', 'canceling statement due to lock timeout'))).toBe(true);
    expect(isTransientWriteFailure(pgError('XX000', 'could not find valid entry for shard 102174'))).toBe(true);
    expect(isTransientWriteFailure(wrapped('XX000', 'shard for the given value does not exist'))).toBe(true);
  });

  it('is false for a refused write, a timeout, another internal error or anything else', () => {
    expect(isTransientWriteFailure(pgError('23505', 'duplicate key value violates unique constraint'))).toBe(false);
    expect(isTransientWriteFailure(pgError('57014', 'canceling statement due to statement timeout'))).toBe(false);
    expect(isTransientWriteFailure(pgError('XX000', 'unexpected internal error'))).toBe(false);
    expect(isTransientWriteFailure(pgError('42P01', 'relation "wallets" does not exist'))).toBe(false);
    expect(isTransientWriteFailure(new Error('boom'))).toBe(false);
    expect(isTransientWriteFailure(undefined)).toBe(false);
  });
});

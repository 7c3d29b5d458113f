import { DomainError } from '@app/shared-kernel';
import { UNUSABLE_PASSWORD_HASH, verifyPassword } from './password';

describe('password checks', () => {
  it('run two scrypts at a time with a queue of 8: a burst beyond that is refused at once with RATE_LIMITED', async () => {
    const outcomes = await Promise.allSettled(
      Array.from({ length: 14 }, () => verifyPassword('a guess of twelve+', UNUSABLE_PASSWORD_HASH)),
    );
    const refused = outcomes.filter((outcome) => outcome.status === 'rejected');
    expect(outcomes.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(10);
    expect(refused).toHaveLength(4);
    for (const outcome of refused) {
      const reason = (outcome as PromiseRejectedResult).reason as DomainError;
      expect(reason).toBeInstanceOf(DomainError);
      expect(reason).toEqual(expect.objectContaining({ code: 'RATE_LIMITED', details: { retry_after_seconds: 1 } }));
    }
  });
});

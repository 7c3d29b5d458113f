import { MAX_ATTEMPTS, retryDelayAfter } from './retry-schedule';

describe('retry schedule', () => {
  it('waits 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h, then gives up after the eighth attempt', () => {
    const delays = [1, 2, 3, 4, 5, 6, 7].map((attempts) => retryDelayAfter(attempts));
    expect(delays).toEqual([5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000]);
    expect(MAX_ATTEMPTS).toBe(8);
    expect(retryDelayAfter(8)).toBeNull();
    expect(retryDelayAfter(0)).toBeNull();
  });
});

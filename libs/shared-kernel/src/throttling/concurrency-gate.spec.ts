import { DomainError } from '../domain-error';
import { ConcurrencyGate } from './concurrency-gate';

describe('ConcurrencyGate', () => {
  it('runs at most `concurrency` tasks at once, queues `queue` more and refuses the rest with RATE_LIMITED', async () => {
    const gate = new ConcurrencyGate(2, 1, 'busy');
    let active = 0;
    let peak = 0;
    const releases: Array<() => void> = [];
    const task = () =>
      gate.run(async () => {
        active += 1;
        peak = Math.max(peak, active);
        await new Promise<void>((resolve) => releases.push(resolve));
        active -= 1;
        return 'done';
      });
    const admitted = [task(), task(), task()];
    await expect(task()).rejects.toEqual(expect.objectContaining({ code: 'RATE_LIMITED', details: { retry_after_seconds: 1 } }));
    await expect(task()).rejects.toBeInstanceOf(DomainError);
    await new Promise((resolve) => setImmediate(resolve));
    expect(releases).toHaveLength(2);
    while (releases.length > 0) {
      releases.shift()!();
      await new Promise((resolve) => setImmediate(resolve));
    }
    await expect(Promise.all(admitted)).resolves.toEqual(['done', 'done', 'done']);
    expect(peak).toBe(2);
    // Every slot is free again.
    await expect(Promise.all([gate.run(async () => 1), gate.run(async () => 2)])).resolves.toEqual([1, 2]);
  });
});

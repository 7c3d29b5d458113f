import { SharedErrors } from '../shared-kernel-errors';

/**
 * Runs at most `concurrency` tasks at once and lets at most `queue` more wait; past that it
 * refuses at once with 429 RATE_LIMITED (retry after a second) rather than queueing without end.
 * For CPU-bound work in the thread pool (scrypt) that callers must not be able to pile up.
 */
export class ConcurrencyGate {
  private running = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(
    private readonly concurrency: number,
    private readonly queue: number,
    private readonly refusal: string,
  ) {}

  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.running >= this.concurrency) {
      if (this.waiting.length >= this.queue) {
        throw SharedErrors.RATE_LIMITED.create(this.refusal, { details: { retry_after_seconds: 1 } });
      }
      // A finishing task hands its slot over directly: `running` is not decremented for it.
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    } else {
      this.running += 1;
    }
    try {
      return await task();
    } finally {
      const next = this.waiting.shift();
      if (next) next();
      else this.running -= 1;
    }
  }
}

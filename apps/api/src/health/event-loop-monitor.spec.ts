import { EVENT_LOOP_STALL_WARN_MS, EventLoopMonitor } from './event-loop-monitor';

const tick = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function holdTheLoop(ms: number): void {
  const until = Date.now() + ms;
  while (Date.now() < until);
}

describe('EventLoopMonitor', () => {
  it('reports a stall of the event loop as its longest delay, then starts a fresh interval', async () => {
    const monitor = new EventLoopMonitor(3600);
    monitor.onApplicationBootstrap();
    try {
      await tick(50);
      holdTheLoop(EVENT_LOOP_STALL_WARN_MS + 50);
      await tick(50);
      const stalled = monitor.take();
      expect(stalled?.max_ms).toBeGreaterThanOrEqual(EVENT_LOOP_STALL_WARN_MS);
      expect(stalled?.interval_seconds).toBe(3600);
      await tick(100);
      expect(monitor.take()?.max_ms).toBeLessThan(stalled!.max_ms);
    } finally {
      monitor.onApplicationShutdown();
    }
  });

  it('watches nothing when the report is off', () => {
    const monitor = new EventLoopMonitor(0);
    monitor.onApplicationBootstrap();
    expect(monitor.take()).toBeUndefined();
    monitor.onApplicationShutdown();
  });
});

import { Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { monitorEventLoopDelay } from 'node:perf_hooks';

/** A stall this long delays every request of every tenant: logged as a warning, not only reported. */
export const EVENT_LOOP_STALL_WARN_MS = 100;

export interface EventLoopReport {
  /** The longest single delay of the event loop over the interval. */
  max_ms: number;
  p99_ms: number;
  mean_ms: number;
  interval_seconds: number;
}

/**
 * Logs the event loop's delay every `reportSeconds` (one `event_loop` line): how long callbacks
 * that were due waited because something held the loop (a render, a regex, a large JSON). The
 * histogram is Node's own (perf_hooks), sampled every 10 ms off the loop, so watching costs nothing
 * measurable. 0 turns the report off.
 */
@Injectable()
export class EventLoopMonitor implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('EventLoop');
  private histogram?: ReturnType<typeof monitorEventLoopDelay>;
  private timer?: NodeJS.Timeout;

  constructor(private readonly reportSeconds: number) {}

  onApplicationBootstrap(): void {
    if (this.reportSeconds === 0) return;
    this.histogram = monitorEventLoopDelay({ resolution: 10 });
    this.histogram.enable();
    this.timer = setInterval(() => this.report(), this.reportSeconds * 1000);
    this.timer.unref();
  }

  onApplicationShutdown(): void {
    clearInterval(this.timer);
    this.histogram?.disable();
  }

  /** The figures since the last report, then a fresh interval. */
  take(): EventLoopReport | undefined {
    const histogram = this.histogram;
    if (!histogram || histogram.count === 0) return undefined;
    const ms = (nanoseconds: number) => Math.round(nanoseconds / 1e4) / 100;
    const report = {
      max_ms: ms(histogram.max),
      p99_ms: ms(histogram.percentile(99)),
      mean_ms: ms(histogram.mean),
      interval_seconds: this.reportSeconds,
    };
    histogram.reset();
    return report;
  }

  private report(): void {
    const report = this.take();
    if (!report) return;
    const line = { event_loop: report };
    if (report.max_ms >= EVENT_LOOP_STALL_WARN_MS) this.logger.warn(line, `event loop stalled ${report.max_ms} ms`);
    else this.logger.log(line, 'event loop delay');
  }
}

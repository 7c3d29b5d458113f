import { getPriority, setPriority } from 'node:os';

/**
 * How much nicer a render thread is than the thread that started it. On Linux a thread's priority
 * is its own (setpriority on the calling thread), so this lowers only the render threads: when
 * renders and requests want the same core, the event loop and the database go first, and a
 * tenant's heavy previews slow its own renders rather than every other tenant's requests. Renders
 * still get an idle core in full.
 */
export const RENDER_THREAD_NICER_BY = 10;

/** Called once on each render thread; elsewhere than Linux the call would lower the whole process, so it does nothing. */
export function lowerRenderThreadPriority(): void {
  if (process.platform === 'linux') setPriority(Math.min(19, getPriority() + RENDER_THREAD_NICER_BY));
}

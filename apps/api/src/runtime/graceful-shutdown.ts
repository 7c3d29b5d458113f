import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { Server as NetServer, Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { ShutdownGate } from '../http/shutdown-gate';

/** After the drain, the listener closes once nothing has happened for this long (below)... */
const QUIET_MS = 100;
/** ...or this long after the drain at the latest (clients that ignore Retry-After, very slow requests). */
const QUIET_WAIT_MAX_MS = 5000;
/** An open connection with no request for this long is closed; one with a request never is. */
const IDLE_MS = 500;
const SWEEP_MS = 50;

interface SocketState {
  inFlight: number;
  idleSince: number;
}

/**
 * The server's connections and whether each has a request in flight. Installed before listen.
 * Node's `server.close()` destroys every socket it deems idle at that instant, including one whose
 * request is still in the kernel's buffer: the client gets a reset. Closing only sockets idle for
 * a while (as a keep-alive timeout does) leaves that race to a request sent after IDLE_MS of silence.
 */
export class Connections {
  private readonly sockets = new Map<Socket, SocketState>();
  /** The last connection accepted, request received or answer sent. */
  private lastActivityAt = 0;

  constructor(private readonly server: Server) {
    server.on('connection', (socket: Socket) => {
      this.lastActivityAt = performance.now();
      this.sockets.set(socket, { inFlight: 0, idleSince: performance.now() });
      socket.once('close', () => this.sockets.delete(socket));
    });
    server.on('request', (request: IncomingMessage, response: ServerResponse) => {
      const state = this.sockets.get(request.socket);
      this.lastActivityAt = performance.now();
      if (!state) return;
      state.inFlight += 1;
      response.once('close', () => {
        state.inFlight -= 1;
        state.idleSince = this.lastActivityAt = performance.now();
      });
    });
  }

  get open(): number {
    return this.sockets.size;
  }

  get inFlight(): number {
    let count = 0;
    for (const state of this.sockets.values()) count += state.inFlight;
    return count;
  }

  /**
   * Closing a listening socket resets the connections the kernel accepted that Node has not yet.
   * A client answered (2xx with `Connection: close`, or 503) reconnects at once, or, refused, waits
   * out Retry-After; so the listener closes once no request is in flight and no connection,
   * request or answer happened for QUIET_MS (at most QUIET_WAIT_MAX_MS): true when it was quiet.
   */
  async waitForQuiet(): Promise<boolean> {
    const until = performance.now() + QUIET_WAIT_MAX_MS;
    while (performance.now() < until) {
      if (this.quiet()) {
        // After a busy stretch the timers run before the poll phase accepts what the kernel holds:
        // let one poll phase pass, and look again.
        await new Promise((resolve) => setImmediate(resolve));
        if (this.quiet()) return true;
      }
      await sleep(10);
    }
    return false;
  }

  private quiet(): boolean {
    return this.inFlight === 0 && performance.now() - this.lastActivityAt >= QUIET_MS;
  }

  /**
   * Stops accepting, then resolves once every connection has ended: those with a request in
   * flight after their answer (which carries `Connection: close`), idle ones after IDLE_MS.
   */
  async close(): Promise<void> {
    const closed = new Promise<void>((resolve) => {
      // net.Server's close, not http.Server's: the latter also destroys "idle" sockets at once (above).
      NetServer.prototype.close.call(this.server, () => resolve());
    });
    const sweeper = setInterval(() => this.closeIdle(IDLE_MS), SWEEP_MS);
    try {
      await closed;
    } finally {
      clearInterval(sweeper);
    }
  }

  /** After the hard timeout: whatever is left goes. */
  destroyAll(): void {
    for (const socket of this.sockets.keys()) socket.destroy();
  }

  private closeIdle(idleMs: number): void {
    const now = performance.now();
    for (const [socket, state] of this.sockets) {
      if (state.inFlight === 0 && now - state.idleSince >= idleMs) socket.destroy();
    }
  }
}

export interface ShutdownSteps {
  gate: ShutdownGate;
  connections: Connections;
  drainMs: number;
  timeoutMs: number;
  /** Workers, outbox relay, pool (Nest's shutdown hooks), after the last answer. */
  closeApp: () => Promise<void>;
  /** The embedded PostgreSQL, if any: last. */
  stopDatabase: () => Promise<void>;
  say: (message: string, level?: 'info' | 'error') => void;
  exit: (code: number) => void;
}

/**
 * SIGTERM/SIGINT: readiness 503 and `Connection: close` for the drain; then refuse what still
 * arrives (503 SHUTTING_DOWN + Retry-After), stop accepting, answer every accepted request, close
 * idle sockets; then stop workers and the pool, stop the embedded database, exit 0. Past
 * `timeoutMs` it logs what was left and exits 1.
 */
export async function shutDown(signal: string, steps: ShutdownSteps): Promise<void> {
  const { gate, connections, say } = steps;
  const startedAt = performance.now();
  const elapsed = () => `${Math.round(performance.now() - startedAt)} ms`;
  const hardStop = setTimeout(() => {
    say(
      `shutdown did not finish within ${steps.timeoutMs} ms (${connections.open} connections open, ` +
        `${connections.inFlight} requests in flight): exiting anyway`,
      'error',
    );
    connections.destroyAll();
    void Promise.race([steps.stopDatabase(), sleep(5000, undefined, { ref: false })]).finally(() => steps.exit(1));
  }, steps.timeoutMs);
  hardStop.unref();

  gate.drain();
  say(`${signal} received: draining for ${steps.drainMs} ms (readiness answers 503, every response closes its connection)`);
  await sleep(steps.drainMs);
  gate.refuse();
  const quiet = await connections.waitForQuiet();
  const allClosed = connections.close();
  say(
    `drain over after ${elapsed()}: listener closed ${quiet ? 'in a quiet moment' : "at the quiet wait's limit"}, ` +
      `answering the ${connections.inFlight} requests in flight`,
  );
  await allClosed;
  say(`every connection closed after ${elapsed()}: stopping workers and the pool`);
  await steps.closeApp();
  await steps.stopDatabase();
  say(`shutdown complete in ${elapsed()}`);
  clearTimeout(hardStop);
  steps.exit(0);
}

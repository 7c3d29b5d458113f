import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { Server as NetServer, Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { SHUTDOWN_RETRY_AFTER_SECONDS, ShutdownGate } from '../http/shutdown-gate';

/** After the drain, the listener closes once no connection has arrived for this long (or after Retry-After). */
const QUIET_MS = 100;
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
  private lastConnectionAt = 0;

  constructor(private readonly server: Server) {
    server.on('connection', (socket: Socket) => {
      this.lastConnectionAt = Date.now();
      this.sockets.set(socket, { inFlight: 0, idleSince: Date.now() });
      socket.once('close', () => this.sockets.delete(socket));
    });
    server.on('request', (request: IncomingMessage, response: ServerResponse) => {
      const state = this.sockets.get(request.socket);
      if (!state) return;
      state.inFlight += 1;
      response.once('close', () => {
        state.inFlight -= 1;
        state.idleSince = Date.now();
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
   * Closing a listening socket resets the connections the kernel accepted that Node has not yet:
   * close it when none arrived for QUIET_MS (refused clients wait out Retry-After), or after Retry-After anyway.
   */
  async waitForQuiet(): Promise<void> {
    const until = Date.now() + SHUTDOWN_RETRY_AFTER_SECONDS * 1000;
    while (Date.now() - this.lastConnectionAt < QUIET_MS && Date.now() < until) await sleep(10);
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
    const now = Date.now();
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
  const startedAt = Date.now();
  const elapsed = () => `${Date.now() - startedAt} ms`;
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
  await connections.waitForQuiet();
  const allClosed = connections.close();
  say(`drain over after ${elapsed()}: listener closed, answering the ${connections.inFlight} requests in flight`);
  await allClosed;
  say(`every connection closed after ${elapsed()}: stopping workers and the pool`);
  await steps.closeApp();
  await steps.stopDatabase();
  say(`shutdown complete in ${elapsed()}`);
  clearTimeout(hardStop);
  steps.exit(0);
}

import { createServer, Server } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { ShutdownGate } from '../http/shutdown-gate';
import { Connections, shutDown, ShutdownSteps } from './graceful-shutdown';

/** The sequence and the hard timeout; the HTTP behaviour under load is the reliability suite's. */
describe('shutDown', () => {
  let server: Server;
  let connections: Connections;

  beforeEach(async () => {
    server = createServer((_request, response) => response.end('ok'));
    connections = new Connections(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  });
  afterEach(() => {
    if (server.listening) server.close();
  });

  function steps(overrides: Partial<ShutdownSteps>, events: string[]): ShutdownSteps {
    return {
      gate: new ShutdownGate(),
      connections,
      drainMs: 30,
      timeoutMs: 2000,
      closeApp: async () => void events.push('app closed'),
      stopDatabase: async () => void events.push('database stopped'),
      say: (message, level = 'info') => void events.push(`${level}: ${message}`),
      exit: (code) => void events.push(`exit ${code}`),
      ...overrides,
    };
  }

  it('drains, closes the listener, then the app, then the database, and exits 0', async () => {
    const events: string[] = [];
    const gate = new ShutdownGate();
    const done = shutDown('SIGTERM', steps({ gate }, events));
    expect(gate.draining).toBe(true);
    expect(gate.refusing).toBe(false);
    await done;
    expect(gate.refusing).toBe(true);
    expect(server.listening).toBe(false);
    expect(events.filter((event) => !event.startsWith('info: '))).toEqual(['app closed', 'database stopped', 'exit 0']);
    expect(events.at(-2)).toMatch(/^info: shutdown complete in \d+ ms$/);
  });

  it('past the timeout, logs what was left and exits 1 (after stopping the database)', async () => {
    const events: string[] = [];
    void shutDown('SIGTERM', steps({ timeoutMs: 200, closeApp: () => new Promise<never>(() => undefined) }, events));
    await sleep(500);
    const logged = events.find((event) => event.startsWith('error: '));
    expect(logged).toMatch(
      /^error: shutdown did not finish within 200 ms \(0 connections open, 0 requests in flight\): exiting anyway$/,
    );
    expect(events.slice(-2)).toEqual(['database stopped', 'exit 1']);
  });
});

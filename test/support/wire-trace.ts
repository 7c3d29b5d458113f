import type { Pool, PoolClient } from 'pg';

interface Wire {
  parse(config: { text: string; name?: string }): void;
  bind(config: { statement?: string }): void;
  execute(config: object): void;
  sync(): void;
  query(text: string): void;
}

/** The statements a pool's connection sent during one checkout, by round trip (a Sync or a simple Query ends one). */
export type WireSession = string[][];

/**
 * Records, at the wire, what every connection of the pool sends while it is checked out: each
 * Execute (by its statement's text, named statements included) and where each round trip ends.
 * Answers the sessions recorded since the last `reset()`, empty round trips left out.
 */
export function traceWire(pool: Pool): { reset(): void; sessions(): WireSession[] } {
  const texts = new Map<string, string>();
  let sessions: string[][][] = [];
  const restore = new Map<PoolClient, () => void>();
  pool.on('acquire', (client: PoolClient) => {
    const trips: string[][] = [[]];
    sessions.push(trips);
    const wire = (client as unknown as { connection: Wire }).connection;
    const own = { parse: wire.parse, bind: wire.bind, execute: wire.execute, sync: wire.sync, query: wire.query };
    let current = '';
    wire.parse = (config) => {
      current = config.text;
      if (config.name) texts.set(config.name, config.text);
      return own.parse.call(wire, config);
    };
    wire.bind = (config) => {
      if (config.statement) current = texts.get(config.statement) ?? config.statement;
      return own.bind.call(wire, config);
    };
    wire.execute = (config) => {
      trips.at(-1)!.push(current);
      return own.execute.call(wire, config);
    };
    wire.sync = () => {
      trips.push([]);
      return own.sync.call(wire);
    };
    wire.query = (text) => {
      trips.at(-1)!.push(text);
      trips.push([]);
      return own.query.call(wire, text);
    };
    restore.set(client, () => {
      for (const name of Object.keys(own) as Array<keyof Wire>) delete (wire as Partial<Wire>)[name];
    });
  });
  pool.on('release', (_error: Error | undefined, client: PoolClient) => {
    restore.get(client)?.();
    restore.delete(client);
  });
  return {
    reset: () => (sessions = []),
    sessions: () =>
      sessions.map((trips) =>
        trips.filter((trip) => trip.length > 0).map((trip) => trip.map((text) => text.replace(/\s+/g, ' ').trim())),
      ),
  };
}

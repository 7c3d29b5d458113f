import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { EventLog, previousAttributes } from './event-log';
import { EventPublishedHook } from './event-published-hook';
import { eventTypesOf } from './event-type-filter';
import { EVENT_TYPES, EventType } from './event-types';

const LIBS = join(__dirname, '../../..');

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : sources(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.spec.ts') ? [path] : [];
  });
}

function eventLog(): EventLog {
  const txHost = { isTransactionActive: () => true, tx: {} } as never;
  const clock = { now: () => new Date('2026-11-22T12:00:00Z') } as never;
  const cls = { isActive: () => false } as never;
  return new EventLog(txHost, clock, cls, new EventPublishedHook());
}

describe('the event catalog', () => {
  it('lists each type once, as <resource>.<fact>', () => {
    expect(new Set(EVENT_TYPES).size).toBe(EVENT_TYPES.length);
    for (const type of EVENT_TYPES) expect(type).toMatch(/^[a-z_]+(\.[a-z_]+)+$/);
  });

  it('refuses, at the write, an event whose type is not in the catalog (whatever a context casts)', async () => {
    const log = eventLog();
    const tenant = { organizationId: 'o', workspaceId: 'w' };
    await expect(log.stage(tenant, [{ type: 'wallet.exploded' as EventType, object: {} }])).rejects.toThrow(
      'wallet.exploded is not an event type of the catalog',
    );
    const writes = await log.stage(tenant, [{ type: 'wallet.created', object: { id: 'x' } }]);
    expect(writes.map((write) => write.name)).toEqual(['event_sequence', 'event_rows']);
    expect(writes[1].values[8]).toEqual(['wallet.created']);
  });

  it('lets no context outside the catalog’s own files cast a string into an EventType (the compiler checks the rest)', () => {
    const offenders = sources(LIBS)
      .filter((file) => !file.includes(join('shared-kernel', 'src', 'events')))
      .filter((file) => /as\s+EventType\b|<EventType>/.test(readFileSync(file, 'utf8')));
    expect(offenders).toEqual([]);
  });

  it('names only types some context writes (each appears, quoted, in a context’s sources)', () => {
    const written = sources(LIBS)
      .filter((file) => !file.includes(join('shared-kernel', 'src', 'events')))
      .map((file) => readFileSync(file, 'utf8'))
      .join('\n');
    expect(EVENT_TYPES.filter((type) => !written.includes(`'${type}'`))).toEqual([]);
  });

  it('reads a type filter as exact types, prefix.* and *, and refuses one that names no type', () => {
    expect(eventTypesOf('wallet.hold.*')).toEqual(['wallet.hold.captured', 'wallet.hold.created', 'wallet.hold.released']);
    expect(eventTypesOf('customer.created, customer.created')).toEqual(['customer.created']);
    expect(eventTypesOf('*')).toHaveLength(EVENT_TYPES.length);
    expect(eventTypesOf('wallet.*')).toContain('wallet.top_up.failed');
    expect(() => eventTypesOf('wallet.nope')).toThrow();
    expect(() => eventTypesOf('wal*')).toThrow();
    expect(() => eventTypesOf('customer.created,')).toThrow();
  });

  it('names in previous_attributes the fields that changed, with their values before, as JSON', () => {
    const before = { id: 'a', name: 'Old', at: new Date('2026-01-01T00:00:00Z'), tags: ['x'] };
    const after = { id: 'a', name: 'New', at: new Date('2026-01-02T00:00:00Z'), tags: ['x'] };
    expect(previousAttributes(before, after)).toEqual({ name: 'Old', at: '2026-01-01T00:00:00.000Z' });
  });
});

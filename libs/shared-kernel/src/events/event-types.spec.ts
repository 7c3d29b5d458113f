import { EVENT_TYPES, eventTypeMatches, eventTypeSelected, isEventType, isEventTypeFilter } from './event-types';

describe('event type catalog', () => {
  it('lists each type once, in lower-case dotted segments', () => {
    expect(new Set(EVENT_TYPES).size).toBe(EVENT_TYPES.length);
    for (const type of EVENT_TYPES) expect(type).toMatch(/^[a-z_]+(\.[a-z_]+)+$/);
    expect(isEventType('wallet.hold.captured')).toBe(true);
    expect(isEventType('wallet.hold')).toBe(false);
  });

  it('accepts *, exact types and prefixes of whole segments; refuses anything else', () => {
    for (const filter of ['*', 'wallet.*', 'wallet.hold.*', 'plan.version.*', 'customer.created', 'webhook_endpoint.*'])
      expect({ filter, ok: isEventTypeFilter(filter) }).toEqual({ filter, ok: true });
    for (const filter of ['', 'wal*', 'wallet', 'foo.*', 'wallet.hold.captured.*', 'wallet.**', '*.created', 'Wallet.*', 7, null])
      expect({ filter, ok: isEventTypeFilter(filter) }).toEqual({ filter, ok: false });
  });

  it('matches a prefix on segment boundaries only', () => {
    expect(eventTypeMatches('wallet.*', 'wallet.hold.created')).toBe(true);
    expect(eventTypeMatches('wallet.hold.*', 'wallet.hold.created')).toBe(true);
    expect(eventTypeMatches('wallet.hold.*', 'wallet.created')).toBe(false);
    expect(eventTypeMatches('plan.*', 'plan_migration.completed')).toBe(false);
    expect(eventTypeMatches('customer.created', 'customer.created')).toBe(true);
    expect(eventTypeMatches('customer.created', 'customer_verification.created')).toBe(false);
    expect(eventTypeSelected(['cost.*', 'plan.created'], 'plan.created')).toBe(true);
    expect(eventTypeSelected(['cost.*', 'plan.created'], 'plan.updated')).toBe(false);
    expect(eventTypeSelected(['*'], 'webhook_endpoint.disabled')).toBe(true);
  });
});

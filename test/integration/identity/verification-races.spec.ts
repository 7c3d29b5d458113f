import { CommandBus, QueryBus } from '@nestjs/cqrs';
import {
  AuthenticateRequestQuery,
  CreateCustomerCommand,
  CreateSandboxVerificationCommand,
  OverrideVerificationStatusCommand,
  PROVIDER_TRANSITIONS,
  ProcessVerificationWebhookCommand,
  VerificationStatus,
} from '@app/identity';
import { Actor, DomainError, ManualClock } from '@app/shared-kernel';
import { DataSource } from 'typeorm';
import { SandboxVerificationProvider } from '../../../libs/identity/src/infrastructure/sandbox-verification-provider';
import type { SandboxStatus } from '../../../libs/identity/src/infrastructure/sandbox-verification-provider';
import { createTenant } from '../../support/tenants';
import { createTestApp, TestApp } from '../../support/test-app';

/** A small seeded PRNG (mulberry32): the same SEED replays the same events and order (R10). */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let value = state;
    value = Math.imul(value ^ (value >>> 15), value | 1);
    value ^= value + Math.imul(value ^ (value >>> 7), value | 61);
    return ((value ^ (value >>> 14)) >>> 0) / 2 ** 32;
  };
}

const SANDBOX_STATUSES: SandboxStatus[] = ['processing', 'approved', 'declined', 'expired', 'review', 'unavailable'];

/**
 * Provider deliveries racing on one verification on real PostgreSQL, through the CommandBus as the
 * webhook route calls it (each delivery its own transaction): events in random order, each
 * delivered one to three times at once, an admin override among them. Whatever the interleaving,
 * every event is received once (the rest are duplicates), the record holds the result of the
 * newest event applied, and the outbox tells one unbroken chain of permitted moves ending in the
 * record's status. SEED=<n> replays a run.
 */
describe('Verification webhooks racing (PostgreSQL)', () => {
  const clock = new ManualClock(new Date('2027-06-01T08:00:00.000Z'));
  const seed = process.env.SEED ? Number(process.env.SEED) : Math.floor(Math.random() * 2 ** 31);
  const next = random(seed);
  const ROUNDS = 12;
  let t: TestApp;
  let db: DataSource;
  let commands: CommandBus;
  let sandbox: SandboxVerificationProvider;
  let actor: Actor;
  let customerId: string;

  beforeAll(async () => {
    t = await createTestApp({ clock });
    db = t.app.get(DataSource);
    commands = t.app.get(CommandBus);
    sandbox = t.app.get(SandboxVerificationProvider);
    const tenant = await createTenant(t);
    actor = await t.app.get(QueryBus).execute(new AuthenticateRequestQuery(tenant.sandboxAuth, '127.0.0.1', undefined));
    customerId = (await commands.execute(new CreateCustomerCommand(actor, { name: 'Racing GmbH', currency: 'EUR' }))).id;
    console.log(`verification-races: SEED=${seed} (replay: SEED=${seed} npm test -- ${__filename.split('/test/')[1]})`);
  });
  afterAll(() => t.close());

  it(`keeps every one of ${ROUNDS} verifications consistent under racing, repeated and out-of-order deliveries`, async () => {
    for (let round = 0; round < ROUNDS; round += 1) {
      clock.advance(60_000);
      const verification = await commands.execute(
        new CreateSandboxVerificationCommand(actor, { customerId, verificationType: 'kyc', status: 'pending' }),
      );
      const events = Array.from({ length: 6 }, (_, index) => {
        const status = SANDBOX_STATUSES[Math.floor(next() * SANDBOX_STATUSES.length)];
        // Around now: an admin's override (at now) comes before some results and after others.
        const occurredAt = new Date(clock.now().getTime() - 3000 + index * 1000);
        return sandbox.signedEvent({
          id: `evt_${round}_${index}`,
          reference: verification.providerReference,
          status,
          occurredAt,
        });
      });
      const deliveries = events.flatMap((event) => Array.from({ length: 1 + Math.floor(next() * 3) }, () => event));
      deliveries.sort(() => next() - 0.5);
      const override = next() < 0.5 ? Math.floor(next() * deliveries.length) : -1;
      const outcomes = await Promise.allSettled(
        deliveries.map(async ({ body, signature }, index) => {
          if (index === override) {
            await commands
              .execute(new OverrideVerificationStatusCommand(actor, verification.id, 'manual'))
              .catch((error: unknown) => {
                if (!(error instanceof DomainError && error.code === 'INVALID_STATUS_TRANSITION')) throw error;
              });
          }
          return commands.execute(new ProcessVerificationWebhookCommand('sandbox', body, signature));
        }),
      );
      const failures = outcomes.filter((outcome) => outcome.status === 'rejected');
      expect({ round, failures: failures.map((failure) => String((failure as PromiseRejectedResult).reason)) }).toEqual({
        round,
        failures: [],
      });
      const duplicates = outcomes.filter((outcome) => outcome.status === 'fulfilled' && outcome.value.duplicate).length;
      expect({ round, duplicates }).toEqual({ round, duplicates: deliveries.length - events.length });

      const received: Array<{ event_id: string; applied: boolean; occurred_at: Date; payload: string }> = await db.query(
        `SELECT event_id, applied, occurred_at, payload FROM verification_webhook_events WHERE verification_id = $1`,
        [verification.id],
      );
      expect(received.map((row) => row.event_id).sort()).toEqual(events.map((_, index) => `evt_${round}_${index}`).sort());
      const [record] = await db.query(
        `SELECT status, provider_result::text AS provider_result, last_event_at FROM customer_verifications WHERE id = $1`,
        [verification.id],
      );
      const applied = received.filter((row) => row.applied).sort((x, y) => x.occurred_at.getTime() - y.occurred_at.getTime());
      if (applied.length > 0) {
        // The newest result applied is the one the record holds, unless an admin overrode later.
        const newest = applied[applied.length - 1];
        expect(record.last_event_at.getTime()).toBeGreaterThanOrEqual(newest.occurred_at.getTime());
        if (record.last_event_at.getTime() === newest.occurred_at.getTime()) expect(record.provider_result).toBe(newest.payload);
      }

      const chain: Array<{ previousStatus: VerificationStatus | null; status: VerificationStatus; source: string }> = (
        await db.query(`SELECT payload FROM outbox_events WHERE payload->>'verificationId' = $1 ORDER BY id`, [verification.id])
      ).map(({ payload }: { payload: any }) => payload);
      expect(chain[0]).toEqual(expect.objectContaining({ previousStatus: null, status: 'pending' }));
      for (let index = 1; index < chain.length; index += 1) {
        const { previousStatus, status, source } = chain[index];
        expect({ round, index, previousStatus }).toEqual({ round, index, previousStatus: chain[index - 1].status });
        if (source === 'provider') expect(PROVIDER_TRANSITIONS[previousStatus!]).toContain(status);
      }
      expect({ round, status: record.status }).toEqual({ round, status: chain[chain.length - 1].status });
    }
  });
});

import { CommandBus, QueryBus } from '@nestjs/cqrs';
import {
  ApplyMoneyOperationCommand,
  CaptureHoldCommand,
  CreateHoldCommand,
  RELEASE_EXPIRED_HOLD_JOB,
  ReleaseHoldCommand,
  TransferFundsCommand,
} from '@app/billing-wallet';
import { AuthenticateRequestQuery, CreateCustomerCommand } from '@app/identity';
import { Actor, DomainError, JobQueue, ManualClock } from '@app/shared-kernel';
import Big from 'big.js';
import { DataSource } from 'typeorm';
import { bookViolations, transferViolations } from '../../support/hold-ledger';
import { createTenant } from '../../support/tenants';
import { createTestApp, TestApp } from '../../support/test-app';

const MINUTE = 60_000;

/** A small seeded PRNG (mulberry32): the same SEED replays the same delays and choices (R10). */
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

function pause(milliseconds: number): Promise<void> {
  return new Promise((resolve) => (milliseconds === 0 ? setImmediate(resolve) : setTimeout(resolve, milliseconds)));
}

/** A refusal is a DomainError with a stable code; anything else (a 500 at the edge) is a finding. */
function refusalCode(reason: unknown): string {
  if (reason instanceof DomainError) return reason.code;
  const driverCode = (reason as { driverError?: { code?: string } })?.driverError?.code;
  return `UNEXPECTED${driverCode ? ` ${driverCode}` : ''}: ${reason instanceof Error ? reason.message : String(reason)}`;
}

/**
 * Holds and transfers racing on real PostgreSQL, through the CommandBus as the HTTP edge calls
 * them (each command its own transaction). R5: capture, release and the expiry release racing
 * on one hold end in exactly one terminal state. Opposite transfers between two wallets never
 * deadlock (locks in id order) and conserve the total. SEED=<n> replays a run's delays.
 */
describe('Hold races and opposite transfers (PostgreSQL)', () => {
  // Later than the real date: the queued release jobs never fire by themselves; the expiry racer runs them.
  const clock = new ManualClock(new Date('2027-05-01T08:00:00.000Z'));
  const seed = process.env.SEED ? Number(process.env.SEED) : Math.floor(Math.random() * 2 ** 31);
  const next = random(seed);
  let t: TestApp;
  let db: DataSource;
  let commands: CommandBus;
  let actor: Actor;

  beforeAll(async () => {
    t = await createTestApp({ clock });
    db = t.app.get(DataSource);
    commands = t.app.get(CommandBus);
    const tenant = await createTenant(t);
    actor = await t.app.get(QueryBus).execute(new AuthenticateRequestQuery(`Bearer ${tenant.rootKey}`, '127.0.0.1', undefined));
    console.log(`hold-races: SEED=${seed} (replay: SEED=${seed} npm test -- ${__filename.split('/test/')[1]})`);
  });
  afterAll(() => t.close());

  /** A new customer's primary wallet (opened with it), credited with `cash`. */
  async function newWallet(cash: string, currency = 'EUR'): Promise<string> {
    const customer = await commands.execute(new CreateCustomerCommand(actor, { name: 'Racing customer', currency }));
    await commands.execute(new ApplyMoneyOperationCommand(actor, 'credit', customer.primaryWalletId, { amount: cash }));
    return customer.primaryWalletId;
  }

  describe('R5: capture, release and the expiry release racing on one hold', () => {
    const ROUNDS = 20;

    it(`ends each of ${ROUNDS} holds in exactly one terminal state; held back to 0; at most one hold_capture line each`, async () => {
      const walletId = await newWallet('1000.00');
      await commands.execute(new ApplyMoneyOperationCommand(actor, 'credit', walletId, { amount: '50.00', source: 'PROMOTION' }));
      const violations: string[] = [];
      const winners: Record<string, number> = { capture: 0, release: 0, expiry: 0 };

      for (let round = 0; round < ROUNDS; round += 1) {
        const expiresAt = new Date(clock.now().getTime() + MINUTE);
        const hold = await commands.execute(new CreateHoldCommand(actor, walletId, { amount: '10.00', expiresAt }));
        const partial = next() < 0.5;
        const delays = [0, 1, 2].map(() => Math.floor(next() * 4));
        const settled = await Promise.allSettled([
          pause(delays[0]).then(() =>
            commands.execute(new CaptureHoldCommand(actor, walletId, hold.id, partial ? '4.00' : undefined)),
          ),
          pause(delays[1]).then(() => commands.execute(new ReleaseHoldCommand(actor, walletId, hold.id))),
          // The expiry racer: expires_at arrives, and the release job runs at once.
          pause(delays[2]).then(() => {
            clock.set(expiresAt);
            return t.app.get(JobQueue).runNow(RELEASE_EXPIRED_HOLD_JOB, {
              organizationId: actor.organizationId,
              workspaceId: actor.workspaceId,
              walletId,
              holdId: hold.id,
            });
          }),
        ]);

        const where = `round ${round} (hold ${hold.id}, delays ${delays.join('/')}, ${partial ? 'partial' : 'full'} capture)`;
        const [captured, released, expired] = settled;
        if (expired.status === 'rejected') violations.push(`${where}: the release job failed: ${refusalCode(expired.reason)}`);
        for (const result of [captured, released]) {
          if (result.status === 'rejected' && refusalCode(result.reason) !== 'HOLD_NOT_PENDING')
            violations.push(`${where}: refused with ${refusalCode(result.reason)}`);
        }
        const [row] = await db.query(
          `SELECT status, release_reason, captured_amount::text FROM wallet_holds WHERE wallet_id = $1 AND id = $2`,
          [walletId, hold.id],
        );
        const audited: Array<{ action: string }> = await db.query(
          `SELECT action FROM audit_events WHERE resource_type = 'wallet_hold' AND resource_id = $1 AND action <> 'wallet_hold.created'`,
          [hold.id],
        );
        const won = [
          ...(captured.status === 'fulfilled' ? ['capture'] : []),
          ...(released.status === 'fulfilled' ? ['release'] : []),
          ...(audited.some(({ action }) => action === 'wallet_hold.expired') ? ['expiry'] : []),
        ];
        if (won.length !== 1 || audited.length !== 1) {
          violations.push(`${where}: ${won.length} winners (${won.join(', ')}), ${audited.length} terminal audit events`);
        }
        const expected = {
          capture: { status: 'captured', release_reason: partial ? 'capture_remainder' : null },
          release: { status: 'released', release_reason: 'manual' },
          expiry: { status: 'released', release_reason: 'expired' },
        }[won[0] as 'capture' | 'release' | 'expiry'];
        if (won.length === 1 && (row.status !== expected.status || row.release_reason !== expected.release_reason)) {
          violations.push(`${where}: ${won[0]} won but the hold is ${row.status}/${row.release_reason}`);
        }
        for (const name of won) winners[name] += 1;
        violations.push(...(await bookViolations(db, [walletId])).map((violation) => `${where}: ${violation}`));
      }

      console.log(`hold-races R5: SEED=${seed} winners ${JSON.stringify(winners)}`);
      expect(violations).toEqual([]);
      // The race is real: more than one racer won across the rounds.
      expect(Object.values(winners).filter((count) => count > 0).length).toBeGreaterThan(1);
      const [wallet] = await db.query('SELECT held_balance::text AS held FROM wallets WHERE id = $1', [walletId]);
      expect(wallet.held).toBe('0.0000');
      const [{ pending }] = await db.query(
        `SELECT count(*)::int AS pending FROM wallet_holds WHERE wallet_id = $1 AND status = 'pending'`,
        [walletId],
      );
      expect(pending).toBe(0);
      const [{ captures, lines }] = await db.query(
        `SELECT count(DISTINCT hold_id)::int AS captures, count(*)::int AS lines FROM wallet_transactions
          WHERE wallet_id = $1 AND type = 'hold_capture'`,
        [walletId],
      );
      expect([lines, captures]).toEqual([winners.capture, winners.capture]);
    });
  });

  describe('opposite transfers', () => {
    const EACH_WAY = 50;

    async function race(from: string, to: string, back: string, forth: string): Promise<string[]> {
      const transfer = (source: string, target: string) =>
        commands.execute(
          new TransferFundsCommand(actor, source, { amount: '1.00', currency: 'EUR', targetWalletId: target, reason: 'race' }),
        );
      const settled = await Promise.allSettled(
        Array.from({ length: EACH_WAY }, () => [transfer(from, to), transfer(back, forth)]).flat(),
      );
      return settled.flatMap((result) => (result.status === 'rejected' ? [refusalCode(result.reason)] : []));
    }

    async function total(walletIds: string[]): Promise<string> {
      const [row] = await db.query(
        'SELECT sum(cash_balance + promotional_balance)::text AS total FROM wallets WHERE id = ANY ($1)',
        [walletIds],
      );
      return new Big(row.total).toFixed(2);
    }

    it(`A→B and B→A ${EACH_WAY} times each, concurrently: all complete (no deadlock) and the total is conserved`, async () => {
      const a = await newWallet('100.00');
      const b = await newWallet('100.00');
      await commands.execute(new ApplyMoneyOperationCommand(actor, 'credit', a, { amount: '20.00', source: 'PROMOTION' }));
      expect(await race(a, b, b, a)).toEqual([]);
      expect(await total([a, b])).toBe('220.00');
      const [{ count }] = await db.query(
        'SELECT count(*)::int AS count FROM wallet_transfers WHERE source_wallet_id = ANY ($1) AND target_wallet_id = ANY ($1)',
        [[a, b]],
      );
      expect(count).toBe(2 * EACH_WAY);
      expect(await transferViolations(db, actor.organizationId)).toEqual([]);
      expect(await bookViolations(db, [a, b])).toEqual([]);
    }, 120_000);

    it('never deadlocks either when one side writes the other wallet’s id in upper case', async () => {
      // A pair whose order flips when the larger id is upper-cased: its first differing
      // character is a letter in both ids (upper-case letters sort before every lower-case one).
      const pool: string[] = [];
      let pair: [string, string] | undefined;
      while (!pair && pool.length < 60) {
        const id = await newWallet('100.00');
        pair = pool
          .map((other): [string, string] => (other < id ? [other, id] : [id, other]))
          .find(([low, high]) => low < high !== low < high.toUpperCase());
        pool.push(id);
      }
      expect(pair).toBeDefined();
      const [low, high] = pair!;
      expect(await race(low, high.toUpperCase(), high, low)).toEqual([]);
      expect(await total([low, high])).toBe('200.00');
      expect(await transferViolations(db, actor.organizationId)).toEqual([]);
      expect(await bookViolations(db, [low, high])).toEqual([]);
    }, 120_000);
  });
});

import { CommandBus, QueryBus } from '@nestjs/cqrs';
import {
  ApplyMoneyOperationCommand,
  BatchRejectedError,
  CaptureHoldCommand,
  DebitBatchCommand,
  CreateHoldCommand,
  EXPIRE_PROMOTIONAL_LOTS_JOB,
  MoneyOperationInput,
  MoneyOperationKind,
  MoneyOperationResult,
  PutFxRateCommand,
  RELEASE_EXPIRED_HOLD_JOB,
  ReleaseHoldCommand,
  TransferFundsCommand,
  UpdateWalletSettingsCommand,
  WalletSettingsInput,
} from '@app/billing-wallet';
import { AuthenticateRequestQuery, CreateCustomerCommand } from '@app/identity';
import { Actor, DomainError, JobQueue, ManualClock } from '@app/shared-kernel';
import fc from 'fast-check';
import { DataSource } from 'typeorm';
import { conservationViolations } from '../../support/conservation-ledger';
import { createTenant } from '../../support/tenants';
import { createTestApp, TestApp } from '../../support/test-app';

const MINUTE = 60_000;
const WORKERS = 32;
const OPERATIONS = Number(process.env.CONSERVATION_OPERATIONS ?? 10_000);
const seed = process.env.SEED ? Number(process.env.SEED) : Math.floor(Math.random() * 2 ** 31);

/** Twelve wallets over three currencies; limits chosen so that every refusal path is reachable. */
const WALLETS: Array<{ currency: 'EUR' | 'USD' | 'JPY'; settings: WalletSettingsInput }> = [
  { currency: 'EUR', settings: {} },
  { currency: 'EUR', settings: { creditLimit: '50.00' } },
  { currency: 'EUR', settings: { creditLimit: '200.00', maxBalance: '900.00' } },
  { currency: 'EUR', settings: { maxBalance: '1500.00', maxSingleCredit: '120.00' } },
  { currency: 'USD', settings: {} },
  { currency: 'USD', settings: { creditLimit: '100.00' } },
  { currency: 'USD', settings: { creditLimit: '30.00', maxBalance: '700.00' } },
  { currency: 'USD', settings: { maxSingleCredit: '150.00' } },
  { currency: 'JPY', settings: {} },
  { currency: 'JPY', settings: { creditLimit: '8000' } },
  { currency: 'JPY', settings: { creditLimit: '3000', maxBalance: '90000' } },
  { currency: 'JPY', settings: { maxSingleCredit: '15000' } },
];

/** Both ways between all three currencies (not exact inverses: the clearing account absorbs the spread). */
const FX_RATES: Array<[string, string, string]> = [
  ['EUR', 'USD', '1.0843'],
  ['USD', 'EUR', '0.9221'],
  ['EUR', 'JPY', '162.37'],
  ['JPY', 'EUR', '0.006158'],
  ['USD', 'JPY', '149.72'],
  ['JPY', 'USD', '0.006679'],
];

type Kind =
  | 'credit'
  | 'promotion'
  | 'debit'
  | 'adjust'
  | 'hold'
  | 'capture'
  | 'release'
  | 'expire'
  | 'tick'
  | 'transfer'
  | 'fx_transfer'
  | 'batch';

/**
 * One generated operation. `units` are cents (EUR, USD) or yen; `pick` chooses at run time what
 * depends on the state the race left (which open hold, which target wallet), so that a SEED
 * replays the same choices for the same state.
 */
interface Op {
  kind: Kind;
  wallet: number;
  units: number;
  minutes: number | null;
  pick: number;
  partial: boolean;
}

function operations(): Op[] {
  const op = (kind: Kind, units: fc.Arbitrary<number>, minutes: fc.Arbitrary<number | null> = fc.constant(null)) =>
    fc.record({
      kind: fc.constant(kind),
      wallet: fc.integer({ min: 0, max: WALLETS.length - 1 }),
      units,
      minutes,
      pick: fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
      partial: fc.boolean(),
    });
  const arbitrary: fc.Arbitrary<Op> = fc.oneof(
    { weight: 10, arbitrary: op('credit', fc.integer({ min: 1, max: 20_000 })) },
    {
      weight: 6,
      arbitrary: op('promotion', fc.integer({ min: 1, max: 10_000 }), fc.option(fc.integer({ min: 1, max: 60 }), { freq: 4 })),
    },
    { weight: 13, arbitrary: op('debit', fc.integer({ min: 1, max: 12_000 })) },
    {
      weight: 5,
      arbitrary: op(
        'adjust',
        fc.integer({ min: -10_000, max: 10_000 }).filter((n) => n !== 0),
      ),
    },
    {
      weight: 12,
      arbitrary: op('hold', fc.integer({ min: 1, max: 12_000 }), fc.option(fc.integer({ min: 1, max: 20 }), { freq: 2 })),
    },
    { weight: 9, arbitrary: op('capture', fc.constant(0)) },
    { weight: 5, arbitrary: op('release', fc.constant(0)) },
    { weight: 4, arbitrary: op('expire', fc.constant(0)) },
    { weight: 2, arbitrary: op('tick', fc.constant(0), fc.integer({ min: 1, max: 4 })) },
    { weight: 7, arbitrary: op('transfer', fc.integer({ min: 1, max: 12_000 })) },
    { weight: 7, arbitrary: op('fx_transfer', fc.integer({ min: 1, max: 12_000 })) },
    { weight: 6, arbitrary: op('batch', fc.integer({ min: 1, max: 12_000 })) },
  );
  return fc.sample(arbitrary, { seed, numRuns: OPERATIONS });
}

function amount(units: number, currency: string): string {
  return currency === 'JPY' ? String(units) : (units / 100).toFixed(2);
}

/** A refusal is a DomainError with a stable code; anything else (a 500 at the edge) fails the test. */
function refusalCode(reason: unknown): string {
  if (reason instanceof DomainError) return reason.code === 'VALIDATION_ERROR' ? `VALIDATION_ERROR:${reason.param}` : reason.code;
  const driverCode = (reason as { driverError?: { code?: string } })?.driverError?.code;
  return `UNEXPECTED${driverCode ? ` ${driverCode}` : ''}: ${reason instanceof Error ? reason.message : String(reason)}`;
}

/**
 * The refusals the rules allow under this mix: funds and limits; a hold captured or released
 * after another worker (or its expiry) ended it; an expires_at that the racing clock overtook
 * before the command read it; a JPY→EUR/USD amount that converts to less than a cent.
 */
const ALLOWED_REFUSALS = new Set([
  'BATCH_REJECTED',
  'INSUFFICIENT_FUNDS',
  'LIMIT_EXCEEDED',
  'HOLD_NOT_PENDING',
  'VALIDATION_ERROR:expires_at',
  'VALIDATION_ERROR:amount.value',
]);

/** What an item of a batch may answer beyond ALLOWED_REFUSALS: its reference names another debit of the pool. */
const ALLOWED_ITEM_REFUSALS = new Set([...ALLOWED_REFUSALS, 'REFERENCE_ALREADY_USED']);

/**
 * A batch of 2 to 6 debits derived from its operation: wallets from `wallet` on (repeats
 * included), amounts from `units`, references from a pool of 40 on CHARGE (so batches replay or
 * collide with each other's), now and then an item repeated within the batch; `partial` makes it atomic.
 */
function batchItems(op: Op): Array<{ wallet: number; units: number; reference: string | null }> {
  const count = 2 + Math.floor(op.pick * 5);
  const items: Array<{ wallet: number; units: number; reference: string | null }> = [];
  for (let index = 0; index < count; index += 1) {
    if (index > 0 && (op.units + index) % 5 === 0) {
      items.push({ ...items[index - 1] });
      continue;
    }
    items.push({
      wallet: (op.wallet + Math.floor(op.pick * 7 * (index + 1))) % WALLETS.length,
      units: 1 + ((op.units * (index + 3)) % 4000),
      reference: (op.units + index) % 3 === 0 ? null : `batch-${(op.units + index * 11) % 40}`,
    });
  }
  return items;
}

const SKIPPED: string[] = [];

interface OpenHold {
  wallet: number;
  walletId: string;
  id: string;
  units: number;
  expiresAt: Date | null;
}

interface Outcome {
  kind: Kind;
  refusal?: string;
  /** A capture, release or expiry that found no open hold to act on. */
  skipped?: boolean;
  /** Ledger lines this operation was acknowledged with. */
  lines: string[];
}

/**
 * R1 (conservation) on real PostgreSQL: 32 workers run ≥ 10,000 randomized operations through
 * the CommandBus as the HTTP edge calls them (each command its own transaction) on one
 * tenant's twelve EUR/USD/JPY wallets — credits, promotional lots with expiries, debits,
 * signed adjustments, holds (some expiring), full and partial captures, releases, the
 * expiry-release job racing them, the lot-expiry sweeper as the clock moves, same-currency and
 * FX transfers. Afterwards every wallet's books, every hold and every transfer must balance.
 * R10: the seed is printed; SEED=<n> replays the operations (CONSERVATION_OPERATIONS=<n> sizes the run).
 */
describe('R1: ledger conservation under a randomized concurrent mix (PostgreSQL)', () => {
  // Later than the real date: the release jobs queued with holds never fire by themselves; the
  // `expire` operations run them, racing the other workers.
  const start = new Date('2027-03-01T08:00:00.000Z');
  const clock = new ManualClock(start);
  let t: TestApp;
  let db: DataSource;
  let commands: CommandBus;
  let jobs: JobQueue;
  let actor: Actor;

  beforeAll(async () => {
    t = await createTestApp({ clock });
    db = t.app.get(DataSource);
    commands = t.app.get(CommandBus);
    jobs = t.app.get(JobQueue);
    const tenant = await createTenant(t);
    actor = await t.app.get(QueryBus).execute(new AuthenticateRequestQuery(`Bearer ${tenant.rootKey}`, '127.0.0.1', undefined));
  });
  afterAll(() => t?.close());

  async function money(kind: MoneyOperationKind, walletId: string, input: MoneyOperationInput): Promise<MoneyOperationResult> {
    const result = await commands.execute(new ApplyMoneyOperationCommand(actor, kind, walletId, input));
    if ('held' in result) throw new Error(`${kind} unexpectedly held for approval`);
    return result;
  }

  /**
   * Each wallet is the primary wallet of a customer of its own (opened with the customer), then
   * given its limits, and funded in chunks below max_single_credit.
   */
  async function openWallets(): Promise<string[]> {
    const ids: string[] = [];
    for (const [index, { currency, settings }] of WALLETS.entries()) {
      const customer = await commands.execute(new CreateCustomerCommand(actor, { name: `Conservation ${index}`, currency }));
      const walletId = customer.primaryWalletId;
      await commands.execute(new UpdateWalletSettingsCommand(actor, walletId, currency, settings));
      for (let chunk = 0; chunk < 4; chunk += 1) await money('credit', walletId, { amount: amount(10_000, currency) });
      ids.push(walletId);
    }
    for (const [from, to, rate] of FX_RATES) await commands.execute(new PutFxRateCommand(actor, from, to, rate));
    return ids;
  }

  it(`keeps every wallet, hold and transfer balanced over ${OPERATIONS} operations by ${WORKERS} concurrent workers (SEED printed)`, async () => {
    console.log(`conservation R1: SEED=${seed} (replay: SEED=${seed} npm test -- ${__filename.split('/test/')[1]})`);
    const ops = operations();
    const wallets = await openWallets();
    const seeded: string[] = (await db.query('SELECT id FROM wallet_transactions WHERE wallet_id = ANY ($1)', [wallets])).map(
      (row: { id: string }) => row.id,
    );
    const byCurrency = (currency: string) => WALLETS.flatMap((w, index) => (w.currency === currency ? [index] : []));

    const open: OpenHold[] = [];
    const outcomes: Outcome[] = [];
    const holdsCreated: string[] = [];
    const holdsCaptured: string[] = [];
    const holdsReleased: string[] = [];
    const transfers: string[] = [];
    /** Each batch item's refusal (the batch itself answered), and each item refusal that refused an atomic batch. */
    const itemRefusals: string[] = [];
    let batchItemsApplied = 0;
    const close = (hold: OpenHold) => {
      const at = open.indexOf(hold);
      if (at >= 0) open.splice(at, 1);
    };

    /** Runs one operation; returns the ledger lines it was acknowledged with (throws a refusal). */
    const run = async (op: Op): Promise<string[]> => {
      const currency = WALLETS[op.wallet].currency;
      const walletId = wallets[op.wallet];
      const value = amount(Math.abs(op.units), currency);
      const later = (minutes: number | null) => (minutes === null ? null : new Date(clock.now().getTime() + minutes * MINUTE));
      switch (op.kind) {
        case 'credit':
          return [
            (await money('credit', walletId, { amount: value, source: op.partial ? 'PAYMENT' : 'REFUND' })).transaction.entry.id,
          ];
        case 'promotion': {
          const input = { amount: value, source: 'PROMOTION', expiresAt: later(op.minutes) };
          return [(await money('credit', walletId, input)).transaction.entry.id];
        }
        case 'debit':
          return [
            (await money('debit', walletId, { amount: value, source: op.partial ? 'CHARGE' : 'FEE' })).transaction.entry.id,
          ];
        case 'adjust': {
          const signed = op.units < 0 ? `-${value}` : value;
          return [(await money('adjust', walletId, { amount: signed, reason: 'conservation' })).transaction.entry.id];
        }
        case 'hold': {
          const expiresAt = later(op.minutes);
          const hold = await commands.execute(new CreateHoldCommand(actor, walletId, { amount: value, expiresAt }));
          holdsCreated.push(hold.id);
          open.push({ wallet: op.wallet, walletId, id: hold.id, units: op.units, expiresAt });
          return [];
        }
        case 'capture':
        case 'release': {
          // A capture goes for a hold that has not expired yet if there is one (and may still lose
          // to its expiry); a release for any open hold.
          const live = op.kind === 'capture' ? open.filter((h) => h.expiresAt === null || h.expiresAt > clock.now()) : [];
          const candidates = live.length > 0 ? live : open;
          const hold = candidates[Math.floor(op.pick * candidates.length)];
          if (!hold) return SKIPPED;
          try {
            if (op.kind === 'release') {
              await commands.execute(new ReleaseHoldCommand(actor, hold.walletId, hold.id));
              close(hold);
              holdsReleased.push(hold.id);
              return [];
            }
            const part = op.partial
              ? amount(Math.max(1, Math.floor(hold.units * op.pick)), WALLETS[hold.wallet].currency)
              : undefined;
            const captured = await commands.execute(new CaptureHoldCommand(actor, hold.walletId, hold.id, part));
            close(hold);
            holdsCaptured.push(hold.id);
            return [captured.snapshot.captureTransactionId!];
          } catch (error) {
            if (error instanceof DomainError && error.code === 'HOLD_NOT_PENDING') close(hold);
            throw error;
          }
        }
        case 'expire': {
          // The release job at expires_at, racing captures and releases of the same hold: a due
          // hold if there is one; else expires_at arrives when it is near; else the job fires
          // early and must leave the hold alone.
          const expiring = open.filter((hold) => hold.expiresAt !== null);
          const due = expiring.filter((hold) => hold.expiresAt! <= clock.now());
          let hold = due[Math.floor(op.pick * due.length)];
          if (!hold && expiring.length > 0) {
            const soonest = expiring.reduce((a, b) => (a.expiresAt! <= b.expiresAt! ? a : b));
            if (soonest.expiresAt!.getTime() - clock.now().getTime() <= 3 * MINUTE) {
              clock.set(soonest.expiresAt!);
              hold = soonest;
            } else hold = expiring[Math.floor(op.pick * expiring.length)];
          }
          if (!hold) return SKIPPED;
          const released = hold.expiresAt! <= clock.now();
          await jobs.runNow(RELEASE_EXPIRED_HOLD_JOB, {
            organizationId: actor.organizationId,
            workspaceId: actor.workspaceId,
            walletId: hold.walletId,
            holdId: hold.id,
          });
          if (released) close(hold);
          return [];
        }
        case 'batch': {
          const items = batchItems(op);
          const input = items.map((item) => ({
            walletId: wallets[item.wallet],
            amount: amount(item.units, WALLETS[item.wallet].currency),
            source: 'CHARGE',
            reference: item.reference,
          }));
          try {
            const answers = await commands.execute(new DebitBatchCommand(actor, input, op.partial));
            for (const answer of answers) if ('error' in answer) itemRefusals.push(refusalCode(answer.error));
            // A replayed item answers with a line already acknowledged (by this batch or another): counted once.
            const applied = answers.flatMap((answer) =>
              'result' in answer && !answer.result.replayed ? [answer.result.transaction.entry.id] : [],
            );
            batchItemsApplied += applied.length;
            return applied;
          } catch (error) {
            if (error instanceof BatchRejectedError)
              itemRefusals.push(...error.refusals.map(({ error: item }) => refusalCode(item)));
            throw error;
          }
        }
        case 'tick':
          // Time passes and the lot-expiry sweeper runs, racing the other workers.
          clock.advance(op.minutes! * MINUTE);
          await jobs.runNow(EXPIRE_PROMOTIONAL_LOTS_JOB);
          return [];
        case 'transfer':
        case 'fx_transfer': {
          const candidates =
            op.kind === 'transfer'
              ? byCurrency(currency).filter((index) => index !== op.wallet)
              : WALLETS.flatMap((w, index) => (w.currency !== currency ? [index] : []));
          const target = wallets[candidates[Math.floor(op.pick * candidates.length)]];
          const result = await commands.execute(
            new TransferFundsCommand(actor, walletId, { amount: value, currency, targetWalletId: target }),
          );
          transfers.push(result.transferId);
          return [result.debit.entry.id, result.credit.entry.id];
        }
      }
    };

    const began = Date.now();
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < ops.length) {
        const op = ops[next++];
        try {
          const lines = await run(op);
          outcomes.push({ kind: op.kind, lines: lines === SKIPPED ? [] : lines, skipped: lines === SKIPPED });
        } catch (error) {
          outcomes.push({ kind: op.kind, refusal: refusalCode(error), lines: [] });
        }
      }
    };
    await Promise.all(Array.from({ length: WORKERS }, worker));
    const raceSeconds = (Date.now() - began) / 1000;

    const checkStarted = Date.now();
    const violations = await conservationViolations(db, actor.organizationId, wallets);
    const checkSeconds = (Date.now() - checkStarted) / 1000;

    const tally = (pick: (outcome: Outcome) => string | undefined) => {
      const counts: Record<string, number> = {};
      for (const outcome of outcomes) {
        const key = pick(outcome);
        if (key !== undefined) counts[key] = (counts[key] ?? 0) + 1;
      }
      return counts;
    };
    const [row] = await db.query(
      `SELECT (SELECT count(*) FROM wallet_transactions WHERE wallet_id = ANY ($1) AND type = 'expiry')::int AS expiry_lines,
                (SELECT count(*) FROM wallet_holds WHERE wallet_id = ANY ($1) AND status = 'pending')::int AS pending,
                (SELECT count(*) FROM wallet_holds WHERE wallet_id = ANY ($1) AND release_reason = 'expired')::int AS expired,
                (SELECT count(*) FROM wallet_holds WHERE wallet_id = ANY ($1) AND release_reason = 'capture_remainder')::int AS partial,
                (SELECT count(*) FROM fx_clearing_entries WHERE organization_id = $2)::int AS clearing_entries`,
      [wallets, actor.organizationId],
    );
    const summary = {
      seed,
      workers: WORKERS,
      operations: outcomes.length,
      byKind: tally((o) => o.kind),
      succeeded: tally((o) => (o.refusal || o.skipped ? undefined : o.kind)),
      skipped: tally((o) => (o.skipped ? o.kind : undefined)),
      refusals: tally((o) => o.refusal),
      refusalsByKind: tally((o) => (o.refusal ? `${o.kind}:${o.refusal}` : undefined)),
      holds: {
        created: holdsCreated.length,
        captured: holdsCaptured.length,
        partial: row.partial,
        released: holdsReleased.length,
      },
      holdsExpiredByJob: row.expired,
      holdsStillPending: row.pending,
      lotExpiryLines: row.expiry_lines,
      transfers: transfers.length,
      batchItemsApplied,
      batchItemRefusals: itemRefusals.length,
      fxClearingEntries: row.clearing_entries,
      minutesElapsed: (clock.now().getTime() - start.getTime()) / MINUTE,
      raceSeconds,
      checkSeconds,
      opsPerSecond: Math.round(outcomes.length / raceSeconds),
      violations: violations.length,
    };
    console.log(`conservation R1: ${JSON.stringify(summary, null, 1)}`);
    if (violations.length > 0) console.log(`conservation R1: SEED=${seed} violations:\n${violations.slice(0, 50).join('\n')}`);

    // Only the refusals the rules allow (anything else — a deadlock, a CHECK constraint, a 500 —
    // is a finding), and R1: every wallet's books, every hold and every transfer balance.
    // Reported together, counted, so that a failure shows the whole picture at once.
    expect({
      unexpected: tally((o) => (o.refusal && !ALLOWED_REFUSALS.has(o.refusal) ? `${o.kind}: ${o.refusal}` : undefined)),
      unexpectedItems: itemRefusals.filter((code) => !ALLOWED_ITEM_REFUSALS.has(code)),
      violations: { count: violations.length, first: violations.slice(0, 20) },
    }).toEqual({ unexpected: {}, unexpectedItems: [], violations: { count: 0, first: [] } });
    // Batches took part: items applied, and items refused (funds, or a reference another debit of the pool holds).
    expect(batchItemsApplied).toBeGreaterThan(0);
    expect(itemRefusals.length).toBeGreaterThan(0);

    // Every acknowledged operation is in the ledger exactly once, and nothing else is but lot expiries.
    const acknowledged = outcomes.flatMap((o) => o.lines);
    expect(new Set(acknowledged).size).toBe(acknowledged.length);
    const lines: Array<{ id: string }> = await db.query(
      `SELECT id FROM wallet_transactions WHERE wallet_id = ANY ($1) AND type <> 'expiry' ORDER BY id`,
      [wallets],
    );
    expect(lines.map((line) => line.id).sort()).toEqual([...seeded, ...acknowledged].sort());
    const holdRows: Array<{ id: string; status: string; release_reason: string | null }> = await db.query(
      'SELECT id, status, release_reason FROM wallet_holds WHERE wallet_id = ANY ($1)',
      [wallets],
    );
    expect(holdRows.map((h) => h.id).sort()).toEqual([...holdsCreated].sort());
    expect(
      holdRows
        .filter((h) => h.status === 'captured')
        .map((h) => h.id)
        .sort(),
    ).toEqual([...holdsCaptured].sort());
    expect(
      holdRows
        .filter((h) => h.release_reason === 'manual')
        .map((h) => h.id)
        .sort(),
    ).toEqual([...holdsReleased].sort());
    const transferRows: Array<{ id: string }> = await db.query('SELECT id FROM wallet_transfers WHERE organization_id = $1', [
      actor.organizationId,
    ]);
    expect(transferRows.map((tr) => tr.id).sort()).toEqual([...transfers].sort());

    // The mix reached every path it is meant to exercise.
    expect(summary.operations).toBe(OPERATIONS);
    for (const kind of ['credit', 'promotion', 'debit', 'adjust', 'hold', 'capture', 'release', 'transfer', 'fx_transfer'])
      expect({ kind, succeeded: (summary.succeeded[kind] ?? 0) > 0 }).toEqual({ kind, succeeded: true });
    if (OPERATIONS >= 2_000) {
      expect(summary.refusals).toEqual(
        expect.objectContaining({
          INSUFFICIENT_FUNDS: expect.any(Number),
          LIMIT_EXCEEDED: expect.any(Number),
          HOLD_NOT_PENDING: expect.any(Number),
        }),
      );
      expect({ partial: row.partial > 0, expiredByJob: row.expired > 0, lotsExpired: row.expiry_lines > 0 }).toEqual({
        partial: true,
        expiredByJob: true,
        lotsExpired: true,
      });
    }

    // Drain: every expiry passes, the release job and the sweeper run, the rest is released by
    // hand. The books still balance, nothing stays held, and no expired lot keeps a remainder.
    clock.advance(24 * 60 * MINUTE);
    const pending: Array<{ wallet_id: string; id: string; expires_at: Date | null }> = await db.query(
      `SELECT wallet_id, id, expires_at FROM wallet_holds WHERE wallet_id = ANY ($1) AND status = 'pending'`,
      [wallets],
    );
    for (const hold of pending) {
      if (hold.expires_at)
        await jobs.runNow(RELEASE_EXPIRED_HOLD_JOB, {
          organizationId: actor.organizationId,
          workspaceId: actor.workspaceId,
          walletId: hold.wallet_id,
          holdId: hold.id,
        });
      else await commands.execute(new ReleaseHoldCommand(actor, hold.wallet_id, hold.id));
    }
    await jobs.runNow(EXPIRE_PROMOTIONAL_LOTS_JOB);
    expect(await conservationViolations(db, actor.organizationId, wallets)).toEqual([]);
    const [drained] = await db.query(
      `SELECT (SELECT count(*) FROM wallet_holds WHERE wallet_id = ANY ($1) AND status = 'pending')::int AS pending,
                (SELECT COALESCE(sum(held_balance), 0)::text FROM wallets WHERE id = ANY ($1)) AS held,
                (SELECT count(*) FROM promotional_lots WHERE wallet_id = ANY ($1) AND remaining > 0 AND expires_at <= $2)::int
                  AS expired_lots_left`,
      [wallets, clock.now()],
    );
    expect(drained).toEqual({ pending: 0, held: '0.0000', expired_lots_left: 0 });
  }, 300_000);
});

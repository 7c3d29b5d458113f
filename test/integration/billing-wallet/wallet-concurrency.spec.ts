import { CommandBus, QueryBus } from '@nestjs/cqrs';
import {
  ApplyMoneyOperationCommand,
  BatchDebitInput,
  BatchDebitOutcome,
  BatchRejectedError,
  DebitBatchCommand,
  MoneyOperationInput,
  MoneyOperationKind,
  MoneyOperationResult,
  UpdateWalletSettingsCommand,
  WalletSettingsInput,
} from '@app/billing-wallet';
import { AuthenticateRequestQuery, CreateCustomerCommand } from '@app/identity';
import { Actor, DomainError, executeWrites, ManualClock, Money, StaleWriteError } from '@app/shared-kernel';
import fc from 'fast-check';
import { DataSource } from 'typeorm';
import { PromotionalLotExpiry } from '../../../libs/billing-wallet/src/application/wallets/lot-expiry';
import { toWallet, walletsWrites, walletWrites, WalletRow } from '../../../libs/billing-wallet/src/infrastructure/wallet-rows';
import { createTenant, idem } from '../../support/tenants';
import { createTestApp, TestApp } from '../../support/test-app';
import { ledgerViolations } from '../../support/wallet-helpers';

const MINUTE = 60_000;

/**
 * Money operations racing on real PostgreSQL, through the CommandBus as the HTTP edge calls
 * them (each command is its own transaction). R2: no double spend. R1: conservation under a
 * randomized concurrent mix (seeded; SEED=<n> replays a run's operations). R3: one effect for
 * a repeated (source, reference).
 */
describe('Wallet money operations under concurrency (PostgreSQL)', () => {
  const clock = new ManualClock(new Date('2026-09-01T08:00:00.000Z'));
  let t: TestApp;
  let db: DataSource;
  let commands: CommandBus;
  let actor: Actor;
  let auth: string;

  beforeAll(async () => {
    t = await createTestApp({ clock });
    db = t.app.get(DataSource);
    commands = t.app.get(CommandBus);
    const tenant = await createTenant(t);
    auth = tenant.auth;
    actor = await t.app.get(QueryBus).execute(new AuthenticateRequestQuery(`Bearer ${tenant.rootKey}`, '127.0.0.1', undefined));
  });
  afterAll(() => t.close());

  /** A new customer's primary wallet (opened with it), with optional limits. */
  async function newWallet(currency = 'EUR', settings: WalletSettingsInput = {}): Promise<string> {
    const customer = await commands.execute(new CreateCustomerCommand(actor, { name: 'Concurrent customer', currency }));
    if (Object.keys(settings).length > 0)
      await commands.execute(new UpdateWalletSettingsCommand(actor, customer.primaryWalletId, undefined, settings));
    return customer.primaryWalletId;
  }

  async function money(kind: MoneyOperationKind, walletId: string, input: MoneyOperationInput): Promise<MoneyOperationResult> {
    const result = await commands.execute(new ApplyMoneyOperationCommand(actor, kind, walletId, input));
    if ('held' in result) throw new Error('unexpectedly held for approval');
    return result;
  }

  async function debitBatch(items: BatchDebitInput[], atomic = false): Promise<BatchDebitOutcome[]> {
    return commands.execute(new DebitBatchCommand(actor, items, atomic));
  }

  async function balances(walletId: string): Promise<{ cash: string; promotional: string; lines: number }> {
    const [row] = await db.query(
      `SELECT cash_balance::text AS cash, promotional_balance::text AS promotional,
              (SELECT count(*) FROM wallet_transactions t
                WHERE t.organization_id = $2 AND t.workspace_id = w.workspace_id AND t.wallet_id = w.id)::int AS lines
         FROM wallets w WHERE w.organization_id = $2 AND w.id = $1`,
      [walletId, actor.organizationId],
    );
    return row;
  }

  /** A refusal is a DomainError with a stable code; anything else (a 500 at the edge) is a finding. */
  function refusalCode(reason: unknown): string {
    if (reason instanceof DomainError)
      return reason.code === 'VALIDATION_ERROR' ? `VALIDATION_ERROR:${reason.param}` : reason.code;
    return `UNEXPECTED: ${reason instanceof Error ? reason.message : String(reason)}`;
  }

  describe('R2: no double spend', () => {
    it.each([1, 2, 3])(
      'repetition %i: a wallet holding 10.00 drained by 40 concurrent debits of 1.00 pays exactly 10',
      async () => {
        const wallet = await newWallet();
        await money('credit', wallet, { amount: '10.00' });
        const results = await Promise.allSettled(Array.from({ length: 40 }, () => money('debit', wallet, { amount: '1.00' })));

        const paid = results.flatMap((result) => (result.status === 'fulfilled' ? [result.value] : []));
        const refused = results.flatMap((result) => (result.status === 'rejected' ? [refusalCode(result.reason)] : []));
        expect(paid).toHaveLength(10);
        // INSUFFICIENT_FUNDS is a rule_violation: 422 at the HTTP edge.
        expect(refused).toEqual(Array.from({ length: 30 }, () => 'INSUFFICIENT_FUNDS'));
        for (const result of results.filter((r) => r.status === 'rejected')) {
          expect((result as PromiseRejectedResult).reason).toMatchObject({ kind: 'rule_violation', code: 'INSUFFICIENT_FUNDS' });
        }
        // Every paid debit saw the balance the previous one left: 9.00, 8.00, … 0.00, each once.
        const endings = paid
          .map((result) => result.transaction.entry.endingCash.toString())
          .sort((a, b) => Number(b) - Number(a));
        expect(endings).toEqual(['9.00', '8.00', '7.00', '6.00', '5.00', '4.00', '3.00', '2.00', '1.00', '0.00']);
        expect(await balances(wallet)).toEqual({ cash: '0.0000', promotional: '0.0000', lines: 11 });
        expect(await ledgerViolations(db, [wallet])).toEqual([]);
      },
    );
  });

  describe('R2 for batches: no double spend, no deadlock', () => {
    it('a wallet holding 10.00 drained by 10 concurrent batches of four 1.00 debits (and 10 single debits) pays exactly 10', async () => {
      const wallet = await newWallet();
      await money('credit', wallet, { amount: '10.00' });
      const item = { walletId: wallet, amount: '1.00' };
      const results = await Promise.allSettled([
        ...Array.from({ length: 10 }, () => debitBatch([item, item, item, item])),
        ...Array.from({ length: 10 }, () => money('debit', wallet, { amount: '1.00' })),
      ]);
      expect(
        results
          .flatMap((r) => (r.status === 'rejected' ? [refusalCode(r.reason)] : []))
          .filter((c) => c !== 'INSUFFICIENT_FUNDS'),
      ).toEqual([]);
      const batchItems = results.slice(0, 10).flatMap((r) => (r.status === 'fulfilled' ? (r.value as BatchDebitOutcome[]) : []));
      expect(batchItems).toHaveLength(40);
      const paidByBatches = batchItems.filter((outcome) => 'result' in outcome);
      const paidSingly = results.slice(10).filter((r) => r.status === 'fulfilled');
      expect(paidByBatches.length + paidSingly.length).toBe(10);
      // Refused items are the funds' refusals, nothing else.
      expect(
        batchItems
          .flatMap((outcome) => ('error' in outcome ? [outcome.error.code] : []))
          .every((c) => c === 'INSUFFICIENT_FUNDS'),
      ).toBe(true);
      const endings = [
        ...paidByBatches.map((outcome) => ('result' in outcome ? outcome.result.transaction.entry.endingCash.toString() : '')),
        ...paidSingly.map((r) =>
          (r as PromiseFulfilledResult<MoneyOperationResult>).value.transaction.entry.endingCash.toString(),
        ),
      ].sort((a, b) => Number(b) - Number(a));
      expect(endings).toEqual(['9.00', '8.00', '7.00', '6.00', '5.00', '4.00', '3.00', '2.00', '1.00', '0.00']);
      expect(await balances(wallet)).toEqual({ cash: '0.0000', promotional: '0.0000', lines: 11 });
      expect(await ledgerViolations(db, [wallet])).toEqual([]);
    });

    it('batches over the same wallets in opposite orders, repeated wallets and atomic ones, all at once: exact totals, no deadlock', async () => {
      const wallets = [await newWallet(), await newWallet(), await newWallet()];
      for (const wallet of wallets) await money('credit', wallet, { amount: '20.00' });
      const orders = [
        [0, 1, 2, 0],
        [2, 1, 0, 2],
        [1, 2, 1, 0],
        [2, 0, 2, 1],
      ];
      const batches = Array.from({ length: 24 }, (_, index) =>
        orders[index % orders.length].map((wallet) => ({ walletId: wallets[wallet], amount: '1.00' })),
      );
      const results = await Promise.allSettled(batches.map((items, index) => debitBatch(items, index % 3 === 0)));
      // An atomic batch is refused only as a whole, for funds; nothing else may fail (a deadlock would show here).
      const failures = results.flatMap((r) => (r.status === 'rejected' ? [refusalCode(r.reason)] : []));
      expect(failures.filter((code) => code !== 'BATCH_REJECTED')).toEqual([]);
      for (const r of results.filter((candidate) => candidate.status === 'rejected')) {
        const reason = (r as PromiseRejectedResult).reason as BatchRejectedError;
        expect(reason.refusals.every((refusal) => refusal.error.code === 'INSUFFICIENT_FUNDS')).toBe(true);
      }
      const applied = results.flatMap((r) =>
        r.status === 'fulfilled' ? r.value.flatMap((outcome) => ('result' in outcome ? [outcome.result] : [])) : [],
      );
      // 96 debits of 1.00 asked of 60.00: exactly 60 paid.
      expect(applied).toHaveLength(60);
      for (const wallet of wallets) expect(await balances(wallet)).toEqual({ cash: '0.0000', promotional: '0.0000', lines: 21 });
      expect(await ledgerViolations(db, wallets)).toEqual([]);
    });
  });

  describe('R1: conservation under a randomized concurrent mix', () => {
    type Op =
      | { type: 'credit'; wallet: number; units: number; source: string; reference: string | null }
      | { type: 'promotion'; wallet: number; units: number; expiresInMinutes: number | null; reference: string | null }
      | { type: 'debit'; wallet: number; units: number; source: string; reference: string | null }
      | { type: 'adjust'; wallet: number; units: number; reference: string | null }
      | {
          type: 'batch';
          atomic: boolean;
          items: Array<{ wallet: number; units: number; source: string; reference: string | null }>;
        }
      | { type: 'tick'; minutes: number };

    const WORKERS = 16;
    const OPERATIONS = Number(process.env.WALLET_R1_OPERATIONS ?? 1200);
    const seed = process.env.SEED ? Number(process.env.SEED) : Math.floor(Math.random() * 2 ** 31);

    /** The five wallets: currency and limits chosen so that every refusal path is reachable. */
    const WALLETS: Array<{ currency: string; settings: WalletSettingsInput }> = [
      { currency: 'EUR', settings: {} },
      { currency: 'EUR', settings: { creditLimit: '50.00' } },
      { currency: 'EUR', settings: { creditLimit: '200.00', maxBalance: '400.00' } },
      { currency: 'USD', settings: { maxSingleCredit: '30.00' } },
      { currency: 'JPY', settings: { creditLimit: '3000' } },
    ];

    function operations(): Op[] {
      const wallet = fc.integer({ min: 0, max: WALLETS.length - 1 });
      const reference = fc.oneof(
        { weight: 4, arbitrary: fc.constant(null) },
        { weight: 1, arbitrary: fc.integer({ min: 0, max: 25 }).map((n) => `ref-${n}`) },
      );
      const op: fc.Arbitrary<Op> = fc.oneof(
        {
          weight: 4,
          arbitrary: fc.record({
            type: fc.constant('credit' as const),
            wallet,
            units: fc.integer({ min: 1, max: 4000 }),
            source: fc.constantFrom('PAYMENT', 'REFUND', 'MANUAL', 'TRANSFER'),
            reference,
          }),
        },
        {
          weight: 3,
          arbitrary: fc.record({
            type: fc.constant('promotion' as const),
            wallet,
            units: fc.integer({ min: 1, max: 2500 }),
            expiresInMinutes: fc.oneof(fc.constant(null), fc.integer({ min: 1, max: 90 })),
            reference,
          }),
        },
        {
          weight: 7,
          arbitrary: fc.record({
            type: fc.constant('debit' as const),
            wallet,
            units: fc.integer({ min: 1, max: 6000 }),
            source: fc.constantFrom('CHARGE', 'INVOICE', 'FEE'),
            reference,
          }),
        },
        {
          weight: 2,
          arbitrary: fc.record({
            type: fc.constant('adjust' as const),
            wallet,
            units: fc.integer({ min: -4000, max: 4000 }).filter((n) => n !== 0),
            reference,
          }),
        },
        { weight: 1, arbitrary: fc.record({ type: fc.constant('tick' as const), minutes: fc.integer({ min: 1, max: 10 }) }) },
        {
          // Batch debits over several wallets (repeated ones included), their references from the same pool as the rest.
          weight: 3,
          arbitrary: fc.record({
            type: fc.constant('batch' as const),
            atomic: fc.boolean(),
            items: fc.array(
              fc.record({
                wallet,
                units: fc.integer({ min: 1, max: 3000 }),
                source: fc.constantFrom('CHARGE', 'INVOICE', 'FEE'),
                reference,
              }),
              { minLength: 1, maxLength: 8 },
            ),
          }),
        },
      );
      const sampled = fc.sample(fc.array(op, { minLength: OPERATIONS, maxLength: OPERATIONS }), { seed, numRuns: 1 })[0];
      // Every fifth operation with a reference retries an earlier one exactly (it replays); the
      // others reuse references at random (409 REFERENCE_ALREADY_USED unless they match).
      const referenced: Op[] = [];
      return sampled.map((operation, index) => {
        if (operation.type === 'batch') {
          // A batch repeats one of its own items now and then (the same debit asked twice in one request).
          if (index % 4 === 0 && operation.items.length > 1) operation.items.push({ ...operation.items[0] });
          return operation;
        }
        if (operation.type === 'tick' || operation.reference === null) return operation;
        if (referenced.length > 0 && index % 5 === 0) return referenced[index % referenced.length];
        referenced.push(operation);
        return operation;
      });
    }

    /** Units are cents, or yen for the JPY wallet. */
    function amount(units: number, currency: string): string {
      return currency === 'JPY' ? String(units) : (units / 100).toFixed(2);
    }

    it(`keeps every wallet's books balanced over ≥ 1,000 concurrent operations by ${WORKERS} workers (SEED printed)`, async () => {
      console.log(`wallet-concurrency R1: SEED=${seed} (replay: SEED=${seed} npm test -- ${__filename.split('/test/')[1]})`);
      const ops = operations();
      const wallets: string[] = [];
      const seeded: string[] = [];
      for (const { currency, settings } of WALLETS) {
        const id = await newWallet(currency);
        seeded.push((await money('credit', id, { amount: currency === 'JPY' ? '10000' : '100.00' })).transaction.entry.id);
        await commands.execute(new UpdateWalletSettingsCommand(actor, id, currency, settings));
        wallets.push(id);
      }
      const limits = await db.query(
        `SELECT credit_limit::text, max_balance::text, max_single_credit::text FROM wallets WHERE id = ANY ($1) ORDER BY array_position($1, id)`,
        [wallets],
      );
      expect(limits).toEqual([
        { credit_limit: '0.0000', max_balance: null, max_single_credit: null },
        { credit_limit: '50.0000', max_balance: null, max_single_credit: null },
        { credit_limit: '200.0000', max_balance: '400.0000', max_single_credit: null },
        { credit_limit: '0.0000', max_balance: null, max_single_credit: '30.0000' },
        { credit_limit: '3000.0000', max_balance: null, max_single_credit: null },
      ]);

      interface Outcome {
        op: Exclude<Op, { type: 'tick' | 'batch' }>;
        walletId: string;
        source: string;
        result?: MoneyOperationResult;
        refusal?: string;
      }
      const outcomes: Outcome[] = [];
      /** Refusals of whole batches (atomic ones), and the item refusals that caused them. */
      const batchRefusals: string[] = [];
      const itemRefusalsOfAtomic: string[] = [];
      let next = 0;
      let sweptWallets = 0;
      const sweepFailures: string[] = [];
      const run = async (op: Op): Promise<void> => {
        if (op.type === 'tick') {
          // Time passes and the lot-expiry sweeper runs, racing the other workers' operations.
          clock.advance(op.minutes * MINUTE);
          try {
            sweptWallets += await t.app.get(PromotionalLotExpiry).sweep();
          } catch (error) {
            sweepFailures.push(refusalCode(error));
          }
          return;
        }
        if (op.type === 'batch') {
          // Each item is an outcome of its own, as a single debit's would be; a refused atomic batch refuses each.
          const items = op.items.map((item) => ({ ...item, type: 'debit' as const }));
          try {
            const answers = await debitBatch(
              items.map((item) => ({
                walletId: wallets[item.wallet],
                amount: amount(item.units, WALLETS[item.wallet].currency),
                source: item.source,
                reference: item.reference,
              })),
              op.atomic,
            );
            for (const [index, answer] of answers.entries()) {
              const item = items[index];
              outcomes.push({
                op: item,
                walletId: wallets[item.wallet],
                source: item.source,
                ...('result' in answer ? { result: answer.result } : { refusal: refusalCode(answer.error) }),
              });
            }
          } catch (error) {
            batchRefusals.push(refusalCode(error));
            if (!(error instanceof BatchRejectedError)) return;
            for (const { index, error: refusal } of error.refusals)
              itemRefusalsOfAtomic.push(`${items[index].type}: ${refusalCode(refusal)}`);
          }
          return;
        }
        const walletId = wallets[op.wallet];
        const currency = WALLETS[op.wallet].currency;
        const value = amount(op.units, currency);
        const input: MoneyOperationInput =
          op.type === 'credit'
            ? { amount: value, source: op.source, reference: op.reference }
            : op.type === 'promotion'
              ? {
                  amount: value,
                  source: 'PROMOTION',
                  reference: op.reference,
                  expiresAt: op.expiresInMinutes === null ? null : new Date(clock.now().getTime() + op.expiresInMinutes * MINUTE),
                }
              : op.type === 'debit'
                ? { amount: value, source: op.source, reference: op.reference }
                : { amount: value, reference: op.reference };
        const source = input.source ?? 'MANUAL';
        const kind: MoneyOperationKind = op.type === 'promotion' ? 'credit' : op.type;
        try {
          outcomes.push({ op, walletId, source, result: await money(kind, walletId, input) });
        } catch (error) {
          outcomes.push({ op, walletId, source, refusal: refusalCode(error) });
        }
      };
      const worker = async (): Promise<void> => {
        while (next < ops.length) await run(ops[next++]);
      };
      await Promise.all(Array.from({ length: WORKERS }, worker));

      const count = (predicate: (outcome: Outcome) => boolean) => outcomes.filter(predicate).length;
      const stats = {
        operations: outcomes.length,
        applied: count((o) => o.result?.replayed === false),
        replayed: count((o) => o.result?.replayed === true),
        refusals: Object.fromEntries(
          [...new Set(outcomes.flatMap((o) => (o.refusal ? [o.refusal] : [])))].map((code) => [
            code,
            count((o) => o.refusal === code),
          ]),
        ),
        batches: ops.filter((o) => o.type === 'batch').length,
        batchesRefused: batchRefusals.length,
        lotsCreated: count((o) => o.op.type === 'promotion' && o.result?.replayed === false),
        debitsFromLots: count(
          (o) => o.op.type === 'debit' && !!o.result && !o.result.transaction.entry.promotionalAmount.isZero(),
        ),
        minutesElapsed: (clock.now().getTime() - new Date('2026-09-01T08:00:00.000Z').getTime()) / MINUTE,
        sweptWallets,
      };
      console.log(`wallet-concurrency R1: SEED=${seed} ${JSON.stringify(stats)}`);

      // Only the refusals the rules allow: funds, limits, a lot whose expiry the clock overtook, and
      // a reference reused for another operation.
      const allowed = new Set(['INSUFFICIENT_FUNDS', 'LIMIT_EXCEEDED', 'VALIDATION_ERROR:expires_at', 'REFERENCE_ALREADY_USED']);
      expect(outcomes.flatMap((o) => (o.refusal && !allowed.has(o.refusal) ? [`${o.op.type}: ${o.refusal}`] : []))).toEqual([]);
      expect(batchRefusals.filter((code) => code !== 'BATCH_REJECTED')).toEqual([]);
      expect(itemRefusalsOfAtomic.filter((refusal) => !allowed.has(refusal.split(': ')[1]))).toEqual([]);
      expect(sweepFailures).toEqual([]);
      expect(stats.operations).toBeGreaterThanOrEqual(1000);
      expect(stats.applied).toBeGreaterThan(300);
      // The mix reached every path: refusals for funds and for limits, replays, lots spent.
      expect(stats.refusals).toEqual(
        expect.objectContaining({ INSUFFICIENT_FUNDS: expect.any(Number), LIMIT_EXCEEDED: expect.any(Number) }),
      );
      expect(stats.replayed).toBeGreaterThan(0);
      expect(stats.debitsFromLots).toBeGreaterThan(0);

      // R1: the books of every wallet balance (see ledgerViolations for the full list of properties).
      expect(await ledgerViolations(db, wallets)).toEqual([]);

      // Every acknowledged operation is in the ledger exactly once, and nothing else is.
      const lines: Array<{ id: string; wallet_id: string; source: string; reference: string | null }> = await db.query(
        `SELECT id, wallet_id, source, reference FROM wallet_transactions
          WHERE wallet_id = ANY ($1) AND type IN ('credit', 'debit', 'adjustment') ORDER BY id`,
        [wallets],
      );
      const acknowledged = outcomes.flatMap((o) => (o.result?.replayed === false ? [o.result.transaction.entry.id] : []));
      expect(new Set(acknowledged).size).toBe(acknowledged.length);
      expect(lines.map((line) => line.id).sort()).toEqual([...seeded, ...acknowledged].sort());
      // A replay answers with the line that holds its (source, reference), on its own wallet.
      const byId = new Map(lines.map((line) => [line.id, line]));
      for (const o of outcomes.filter((outcome) => outcome.result?.replayed === true)) {
        const line = byId.get(o.result!.transaction.entry.id);
        expect({ wallet: line?.wallet_id, source: line?.source, reference: line?.reference }).toEqual({
          wallet: o.walletId,
          source: o.source,
          reference: o.op.reference,
        });
      }
      const keys = lines
        .filter((line) => line.reference !== null)
        .map((line) => `${line.wallet_id}/${line.source}/${line.reference}`);
      expect(new Set(keys).size).toBe(keys.length);
    });
  });

  describe('R3: one effect per (source, reference)', () => {
    it('applies 50 concurrent identical credits with one (source, reference) exactly once; the others replay it', async () => {
      const wallet = await newWallet();
      const results = await Promise.allSettled(
        Array.from({ length: 50 }, () =>
          money('credit', wallet, { amount: '5.00', source: 'PAYMENT', reference: 'pay-dup', reason: 'same payment' }),
        ),
      );
      expect(results.flatMap((r) => (r.status === 'rejected' ? [refusalCode(r.reason)] : []))).toEqual([]);
      const values = results.map((r) => (r as PromiseFulfilledResult<MoneyOperationResult>).value);
      expect(values.filter((value) => !value.replayed)).toHaveLength(1);
      expect(new Set(values.map((value) => value.transaction.entry.id)).size).toBe(1);
      expect(await balances(wallet)).toEqual({ cash: '5.0000', promotional: '0.0000', lines: 1 });
      expect(await ledgerViolations(db, [wallet])).toEqual([]);
    });

    it('applies one debit for 20 concurrent batches and 20 single debits all carrying one (source, reference), twice per batch', async () => {
      const wallet = await newWallet();
      const other = await newWallet();
      await money('credit', wallet, { amount: '50.00' });
      await money('credit', other, { amount: '50.00' });
      const dup = { walletId: wallet, amount: '2.00', source: 'INVOICE', reference: 'inv-dup' };
      const results = await Promise.allSettled([
        ...Array.from({ length: 20 }, (_, index) =>
          debitBatch([dup, { walletId: other, amount: '0.50', reference: `own-${index}` }, dup], index % 2 === 0),
        ),
        ...Array.from({ length: 20 }, () => money('debit', wallet, { amount: '2.00', source: 'INVOICE', reference: 'inv-dup' })),
      ]);
      expect(results.flatMap((r) => (r.status === 'rejected' ? [refusalCode(r.reason)] : []))).toEqual([]);
      const answers = results.flatMap((r) => {
        const value = (r as PromiseFulfilledResult<BatchDebitOutcome[] | MoneyOperationResult>).value;
        return Array.isArray(value)
          ? value.filter((outcome) => outcome.index !== 1).map((outcome) => ('result' in outcome ? outcome.result : undefined))
          : [value];
      });
      expect(answers).toHaveLength(60);
      expect(answers.filter((answer) => answer === undefined)).toEqual([]);
      expect(new Set(answers.map((answer) => answer!.transaction.entry.id)).size).toBe(1);
      expect(answers.filter((answer) => !answer!.replayed)).toHaveLength(1);
      expect(await balances(wallet)).toEqual({ cash: '48.0000', promotional: '0.0000', lines: 2 });
      expect(await balances(other)).toEqual({ cash: '40.0000', promotional: '0.0000', lines: 21 });
      expect(await ledgerViolations(db, [wallet, other])).toEqual([]);
    });

    it('answers 50 concurrent HTTP credits with one (source, reference) under 50 Idempotency-Keys with one ledger line', async () => {
      const wallet = await newWallet();
      const responses = await Promise.all(
        Array.from({ length: 50 }, () =>
          t.http
            .post(`/v1/wallets/${wallet}/credit`)
            .set('Authorization', auth)
            .set('Idempotency-Key', idem())
            .send({ amount: '7.00', source: 'PAYMENT', reference: 'pay-http' })
            .then((response) => response),
        ),
      );
      expect(responses.map((response) => response.status)).toEqual(responses.map(() => 200));
      expect(new Set(responses.map((response) => response.text)).size).toBe(1);
      expect(responses.filter((response) => response.headers['idempotent-replayed'] === undefined)).toHaveLength(1);
      expect(responses.filter((response) => response.headers['idempotent-replayed'] === 'true')).toHaveLength(49);
      expect(await balances(wallet)).toEqual({ cash: '7.0000', promotional: '0.0000', lines: 1 });
    });

    it('acts once for 50 parallel HTTP requests with one Idempotency-Key: the others replay it or are IN_USE', async () => {
      const wallet = await newWallet();
      const key = idem();
      const responses = await Promise.all(
        Array.from({ length: 50 }, () =>
          t.http
            .post(`/v1/wallets/${wallet}/credit`)
            .set('Authorization', auth)
            .set('Idempotency-Key', key)
            .send({ amount: '3.00' })
            .then((response) => response),
        ),
      );
      const statuses = responses.map((response) => `${response.status} ${response.body.error?.code ?? ''}`.trim());
      expect(statuses.filter((status) => status !== '200' && status !== '409 IDEMPOTENCY_KEY_IN_USE')).toEqual([]);
      const ok = responses.filter((response) => response.status === 200);
      expect(new Set(ok.map((response) => response.text)).size).toBe(1);
      expect(await balances(wallet)).toEqual({ cash: '3.0000', promotional: '0.0000', lines: 1 });
      // Once the first completed, the key replays the same bytes.
      const after = await t.http
        .post(`/v1/wallets/${wallet}/credit`)
        .set('Authorization', auth)
        .set('Idempotency-Key', key)
        .send({ amount: '3.00' });
      expect([after.status, after.headers['idempotent-replayed']]).toEqual([200, 'true']);
      expect(after.text).toBe(ok[0]?.text ?? after.text);
    });
  });

  describe('the wallet write checks the version it read', () => {
    it('writes nothing over a row whose version changed since the read (a lock that did not hold), and says so', async () => {
      const walletId = await newWallet('EUR');
      await money('credit', walletId, { amount: '10.00', source: 'PAYMENT' });
      const read = async () =>
        toWallet(
          (
            (await db.query('SELECT * FROM wallet_lock($1, $2, $3::uuid[])', [
              actor.organizationId,
              actor.workspaceId,
              [walletId],
            ])) as WalletRow[]
          )[0],
        );
      const debit = (wallet: Awaited<ReturnType<typeof read>>) =>
        wallet.debit({
          amount: Money.of('1.00', 'EUR'),
          source: 'INVOICE',
          reference: `stale-${idem()}`,
          createdBy: { type: 'api_key', id: null },
          now: clock.now(),
        });
      const stale = await read();
      // Another writer's save lands in between (its own read, its own version).
      const other = await read();
      debit(other);
      await db.transaction((manager) => executeWrites(manager, walletWrites(other)));
      debit(stale);
      await expect(db.transaction((manager) => executeWrites(manager, walletWrites(stale)))).rejects.toThrow(StaleWriteError);
      // The other writer's debit stands alone: no second line, no balance computed from the stale read.
      expect(await balances(walletId)).toEqual({ cash: '9.0000', promotional: '0.0000', lines: 2 });
      expect(await ledgerViolations(db, [walletId])).toEqual([]);
      // A fresh read writes again.
      const fresh = await read();
      debit(fresh);
      await db.transaction((manager) => executeWrites(manager, walletWrites(fresh)));
      expect(await balances(walletId)).toEqual({ cash: '8.0000', promotional: '0.0000', lines: 3 });
    });

    it('writes none of a batch whose one wallet changed since the read (walletsWrites, batch debits), and says so', async () => {
      const [first, second] = [await newWallet('EUR'), await newWallet('EUR')];
      for (const id of [first, second]) await money('credit', id, { amount: '10.00', source: 'PAYMENT' });
      const read = async () =>
        (
          (await db.query('SELECT * FROM wallet_lock($1, $2, $3::uuid[])', [
            actor.organizationId,
            actor.workspaceId,
            [first, second].sort(),
          ])) as WalletRow[]
        ).map(toWallet);
      const debitAll = (wallets: Awaited<ReturnType<typeof read>>) => {
        for (const wallet of wallets)
          wallet.debit({
            amount: Money.of('1.00', 'EUR'),
            source: 'INVOICE',
            reference: `stale-batch-${idem()}`,
            createdBy: { type: 'api_key', id: null },
            now: clock.now(),
          });
      };
      const stale = await read();
      // Another writer debits the second wallet alone in between.
      const other = (await read()).find((wallet) => wallet.snapshot.id === second)!;
      debitAll([other]);
      await db.transaction((manager) => executeWrites(manager, walletWrites(other)));
      debitAll(stale);
      await expect(db.transaction((manager) => executeWrites(manager, walletsWrites(stale)))).rejects.toThrow(StaleWriteError);
      // Neither wallet took the stale batch: the first untouched, the second with the other writer's line only.
      expect(await balances(first)).toEqual({ cash: '10.0000', promotional: '0.0000', lines: 1 });
      expect(await balances(second)).toEqual({ cash: '9.0000', promotional: '0.0000', lines: 2 });
      const fresh = await read();
      debitAll(fresh);
      await db.transaction((manager) => executeWrites(manager, walletsWrites(fresh)));
      expect(await balances(first)).toEqual({ cash: '9.0000', promotional: '0.0000', lines: 2 });
      expect(await balances(second)).toEqual({ cash: '8.0000', promotional: '0.0000', lines: 3 });
      expect(await ledgerViolations(db, [first, second])).toEqual([]);
    });
  });
});

import { CommandBus, QueryBus } from '@nestjs/cqrs';
import { ApplyMoneyOperationCommand, CreateHoldCommand, RELEASE_EXPIRED_HOLD_JOB } from '@app/billing-wallet';
import { AuthenticateRequestQuery, CreateCustomerCommand } from '@app/identity';
import { Actor, ManualClock } from '@app/shared-kernel';
import { DataSource } from 'typeorm';
import { createTenant } from '../../support/tenants';
import { createTestApp, TestApp } from '../../support/test-app';

jest.setTimeout(300_000);

const MANY = 200;
const HOUR = 3_600_000;

/**
 * Issue 19 item 6: single jobs (here hold expiry releases) are scheduled fairly per organization,
 * live before sandbox. The app's clock is later than the real date, so the queued releases never
 * fall due by themselves: the test places the holds, then makes their moment come (the clock moves
 * past expires_at and the jobs' start_after to now, all in one statement), and the app's real
 * workers release them. What is asserted is order, not time: when the one hold is released, most
 * of the many holds due at the same moment are still pending (first come, first served released
 * them all first).
 */
describe('Hold expiry releases are scheduled fairly per organization, live before sandbox (PostgreSQL)', () => {
  const clock = new ManualClock(new Date('2028-06-01T08:00:00.000Z'));
  let t: TestApp;
  let db: DataSource;
  let commands: CommandBus;

  beforeAll(async () => {
    t = await createTestApp({ clock });
    db = t.app.get(DataSource);
    commands = t.app.get(CommandBus);
  });
  afterAll(() => t.close());

  function actorOf(authorization: string): Promise<Actor> {
    return t.app.get(QueryBus).execute(new AuthenticateRequestQuery(authorization, '127.0.0.1', undefined));
  }

  /** `count` holds on a new funded wallet of the actor's workspace, all expiring at `expiresAt`; their ids. */
  async function holds(actor: Actor, count: number, expiresAt: Date): Promise<string[]> {
    const customer = await commands.execute(new CreateCustomerCommand(actor, { name: 'Holding customer', currency: 'EUR' }));
    await commands.execute(new ApplyMoneyOperationCommand(actor, 'credit', customer.primaryWalletId, { amount: `${count}.00` }));
    const ids: string[] = [];
    for (let index = 0; index < count; index += 1) {
      const hold = await commands.execute(new CreateHoldCommand(actor, customer.primaryWalletId, { amount: '1.00', expiresAt }));
      ids.push(hold.id);
    }
    return ids;
  }

  /** The holds' expiry comes: the application's clock passes it and their release jobs fall due now. */
  async function expire(holdIds: string[], expiresAt: Date): Promise<void> {
    clock.set(new Date(expiresAt.getTime() + 1000));
    const updated: [unknown, number] = await db.query(
      `UPDATE pgboss.job SET start_after = now() WHERE name = $1 AND state = 'created' AND data->>'holdId' = ANY($2)`,
      [RELEASE_EXPIRED_HOLD_JOB, holdIds],
    );
    expect(updated[1]).toBe(holdIds.length);
  }

  /** Waits for the hold's release; how many of the others were still pending then. */
  async function pendingOfOthersWhenReleased(holdId: string, others: string[]): Promise<number> {
    for (;;) {
      const [row] = await db.query(
        `SELECT count(*) FILTER (WHERE id = $1 AND status = 'pending')::int AS mine,
                count(*) FILTER (WHERE id = ANY($2) AND status = 'pending')::int AS others
           FROM wallet_holds WHERE id = $1 OR id = ANY($2)`,
        [holdId, others],
      );
      if (row.mine === 0) return row.others;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  async function released(holdIds: string[]): Promise<void> {
    for (;;) {
      const [{ count }] = await db.query(
        `SELECT count(*)::int AS count FROM wallet_holds WHERE id = ANY($1) AND status = 'pending'`,
        [holdIds],
      );
      if (count === 0) return;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  it("releases another organization's one hold before most of many holds expiring at the same moment", async () => {
    const expiresAt = new Date(clock.now().getTime() + HOUR);
    const noisy = await createTenant(t);
    const quiet = await createTenant(t);
    const many = await holds(await actorOf(noisy.auth), MANY, expiresAt);
    const [one] = await holds(await actorOf(quiet.auth), 1, expiresAt);

    await expire([...many, one], expiresAt);

    expect(await pendingOfOthersWhenReleased(one, many)).toBeGreaterThanOrEqual(MANY / 2);
    await released(many);
  });

  it("releases an organization's live hold before most of its sandbox holds expiring at the same moment", async () => {
    const expiresAt = new Date(clock.now().getTime() + HOUR);
    const tenant = await createTenant(t);
    const sandbox = await holds(await actorOf(tenant.sandboxAuth), MANY, expiresAt);
    const [live] = await holds(await actorOf(tenant.auth), 1, expiresAt);

    await expire([...sandbox, live], expiresAt);

    expect(await pendingOfOthersWhenReleased(live, sandbox)).toBeGreaterThanOrEqual(MANY / 2);
    await released(sandbox);
  });
});

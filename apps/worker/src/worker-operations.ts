import { Injectable } from '@nestjs/common';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import { ApplyMoneyOperationCommand } from '@app/billing-wallet';
import { CreateChangeCommand, CreatePlanCommand, GetPlanQuery } from '@app/catalog';
import { Actor } from '@app/shared-kernel';

/** What the example worker does, through the buses only: the contexts' own use cases. */
@Injectable()
export class WorkerOperations {
  constructor(
    private readonly commands: CommandBus,
    private readonly queries: QueryBus,
  ) {}

  /** Credits a wallet (a decimal string amount, in the wallet's currency); returns the ledger result. */
  creditWallet(actor: Actor, walletId: string, amount: string, reference?: string) {
    return this.commands.execute(new ApplyMoneyOperationCommand(actor, 'credit', walletId, { amount, reference }));
  }

  /** Creates a plan and publishes its first version now; returns the plan's id and the change that published it. */
  async publishPlan(actor: Actor, name: string): Promise<{ planId: string; changeId: string }> {
    const planId = await this.commands.execute(new CreatePlanCommand(actor, { name }));
    const { draft_version: draft } = await this.queries.execute(new GetPlanQuery(actor, planId));
    if (!draft) throw new Error(`Plan ${planId} was created without its working draft`);
    const changeId = await this.commands.execute(
      new CreateChangeCommand(actor, { subjectKind: 'plan', subjectId: planId, stagedVersionId: draft.id }),
    );
    return { planId, changeId };
  }
}

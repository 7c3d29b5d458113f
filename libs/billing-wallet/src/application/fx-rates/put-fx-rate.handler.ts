import { Transactional, TransactionHost } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { AuditLog, Clock, invalidParameter, parseCurrency, parseDecimal } from '@app/shared-kernel';
import { FxRateRow, FxRateView, toView } from './fx-rate.view';
import { PutFxRateCommand } from './put-fx-rate.command';

@CommandHandler(PutFxRateCommand)
export class PutFxRateHandler implements ICommandHandler<PutFxRateCommand> {
  constructor(
    private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>,
    private readonly audit: AuditLog,
    private readonly clock: Clock,
  ) {}

  @Transactional()
  async execute({ actor, fromCurrency, toCurrency, rate }: PutFxRateCommand): Promise<FxRateView> {
    const from = parseCurrency(fromCurrency, 'from');
    const to = parseCurrency(toCurrency, 'to');
    if (from === to) throw invalidParameter('to', 'INVALID_VALUE', 'An FX rate converts between two different currencies.');
    const value = parseDecimal(rate, 'rate', { maxIntegerDigits: 12, maxScale: 12, allowNegative: false });
    if (value.lte(0)) throw invalidParameter('rate', 'OUT_OF_RANGE', 'rate must be greater than zero.');
    const [row]: FxRateRow[] = await this.txHost.tx.query(
      `INSERT INTO fx_rates (organization_id, workspace_id, from_currency, to_currency, rate, updated_at, updated_by_type,
                             updated_by_id)
       VALUES ($1, $8, $2, $3, $4, $5, $6, $7)
       ON CONFLICT (organization_id, workspace_id, from_currency, to_currency)
       DO UPDATE SET rate = EXCLUDED.rate, updated_at = EXCLUDED.updated_at, updated_by_type = EXCLUDED.updated_by_type,
                     updated_by_id = EXCLUDED.updated_by_id
       RETURNING from_currency, to_currency, rate, updated_at`,
      [
        actor.organizationId,
        from,
        to,
        value.toFixed(),
        this.clock.now(),
        actor.principal.type,
        actor.principal.id,
        actor.workspaceId,
      ],
    );
    await this.audit.record(actor, {
      action: 'fx_rate.set',
      resourceType: 'fx_rate',
      resourceId: `${from}/${to}`,
      data: { rate: value.toFixed() },
    });
    return toView(row);
  }
}

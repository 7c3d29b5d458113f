import { Body, Controller, Get, Param, Put } from '@nestjs/common';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { FxRateView, ListFxRatesQuery, PutFxRateCommand } from '@app/billing-wallet';
import type { Actor } from '@app/shared-kernel';
import { CurrentActor } from '../http/auth/current-actor.decorator';
import { RequireScope } from '../http/auth/route-access';
import { FxRateDto, FxRateListDto, PutFxRateDto } from './wallets.dto';
import { OperationId } from '../http/operation-id';

function toDto(rate: FxRateView): FxRateDto {
  return {
    object: 'fx_rate',
    from_currency: rate.fromCurrency,
    to_currency: rate.toCurrency,
    rate: rate.rate,
    updated_at: rate.updatedAt.toISOString(),
  };
}

@ApiTags('FX rates')
@Controller('fx_rates')
export class FxRatesController {
  constructor(
    private readonly commands: CommandBus,
    private readonly queries: QueryBus,
  ) {}

  @OperationId('listFxRates')
  @Get()
  @RequireScope('fx_rates:read')
  @ApiOperation({ summary: 'The workspace’s FX rates (a transfer converts at its own workspace’s rate).' })
  @ApiOkResponse({ type: FxRateListDto })
  async list(@CurrentActor() actor: Actor): Promise<FxRateListDto> {
    const rates = await this.queries.execute(new ListFxRatesQuery(actor));
    return { data: rates.map(toDto), pagination: { cursor: null, has_more: false } };
  }

  @OperationId('setFxRate')
  @Put(':from/:to')
  @RequireScope('fx_rates:write')
  @ApiOperation({ summary: 'Set the workspace’s rate from one currency to another; its transfers snapshot it.' })
  @ApiOkResponse({ type: FxRateDto })
  async put(
    @CurrentActor() actor: Actor,
    @Param('from') from: string,
    @Param('to') to: string,
    @Body() body: PutFxRateDto,
  ): Promise<FxRateDto> {
    return toDto(await this.commands.execute(new PutFxRateCommand(actor, from, to, body.rate)));
  }
}

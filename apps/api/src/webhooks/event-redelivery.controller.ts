import { Body, Controller, HttpCode, Param, Post } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiAcceptedResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Actor } from '@app/shared-kernel';
import { RedeliverEventCommand } from '@app/webhooks';
import { CurrentActor } from '../http/auth/current-actor.decorator';
import { RequireScope } from '../http/auth/route-access';
import { ApiErrors } from '../http/error-catalog';
import { OperationId } from '../http/operation-id';
import { RedeliverEventDto, toWebhookDeliveryDto, WebhookDeliveryDto } from './webhook-endpoints.dto';

/** `POST /v1/events/{id}/redeliver`: a route of the events path, served by the webhooks context. */
@ApiTags('Events')
@Controller('events')
export class EventRedeliveryController {
  constructor(private readonly commands: CommandBus) {}

  @OperationId('redeliverEvent')
  @Post(':id/redeliver')
  @HttpCode(202)
  @RequireScope('webhook_endpoints:write')
  @ApiOperation({
    summary:
      'Send an event of the workspace again to one of its endpoints (whatever the endpoint’s event filters), ' +
      'with the same `webhook-id`. Answers the queued delivery.',
  })
  @ApiAcceptedResponse({ type: WebhookDeliveryDto })
  @ApiErrors('EVENT_NOT_FOUND', 'WEBHOOK_ENDPOINT_NOT_FOUND')
  async redeliver(
    @CurrentActor() actor: Actor,
    @Param('id') id: string,
    @Body() body: RedeliverEventDto,
  ): Promise<WebhookDeliveryDto> {
    return toWebhookDeliveryDto(await this.commands.execute(new RedeliverEventCommand(actor, id, body.endpoint_id)));
  }
}

import { Controller, Get, HttpCode, Res } from '@nestjs/common';
import { Public } from '../http/auth/route-access';
import { ApiOkResponse, ApiOperation, ApiServiceUnavailableResponse, ApiTags } from '@nestjs/swagger';
import { DatabaseHealth } from '@app/shared-kernel';
import type { FastifyReply } from 'fastify';
import { ApiErrors } from '../http/error-catalog';
import { ShutdownGate, shuttingDown } from '../http/shutdown-gate';
import { HealthDto, ReadinessDto } from './health.dto';
import { OperationId } from '../http/operation-id';

@ApiTags('Health')
@Public()
@Controller('health')
export class HealthController {
  constructor(
    private readonly database: DatabaseHealth,
    private readonly shutdown: ShutdownGate,
  ) {}

  @OperationId('getLiveness')
  @Get('live')
  @HttpCode(200)
  @ApiOperation({ summary: 'Liveness: the process answers.' })
  @ApiOkResponse({ type: HealthDto })
  live(): HealthDto {
    return { status: 'ok' };
  }

  @OperationId('getReadiness')
  @Get('ready')
  @ApiOperation({
    summary: 'Readiness: the database answers and every migration is applied.',
    description: 'From SIGTERM on, 503 SHUTTING_DOWN at once, while other routes are still served for the drain.',
  })
  @ApiOkResponse({ type: ReadinessDto })
  @ApiServiceUnavailableResponse({
    type: ReadinessDto,
    description: 'Not ready: the database is down or a migration is pending.',
  })
  @ApiErrors('SHUTTING_DOWN')
  async ready(@Res({ passthrough: true }) reply: FastifyReply): Promise<ReadinessDto> {
    if (this.shutdown.draining) throw shuttingDown();
    const checks = await this.database.readiness();
    const ready = checks.database === 'up' && checks.migrations === 'applied';
    const engine = checks.database === 'up' ? await this.database.engine() : undefined;
    void reply.status(ready ? 200 : 503);
    return { status: ready ? 'ok' : 'unavailable', checks, ...(engine && { database: engine }) };
  }
}

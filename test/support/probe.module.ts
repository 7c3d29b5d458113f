import { Transactional, TransactionHost } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { Body, Controller, Get, HttpCode, Injectable, Module, OnModuleInit, Post, Query } from '@nestjs/common';
import { Command, CommandBus, CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { ApiCreatedResponse, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import {
  CursorCodec,
  DomainError,
  HandlesIntegrationEvent,
  IntegrationEvent,
  IntegrationEventHandler,
  JobQueue,
  Outbox,
  newId,
  parseLimit,
  toPage,
} from '@app/shared-kernel';
import { Type } from 'class-transformer';
import { Public } from '../../apps/api/src/http/auth/route-access';
import { IsBoolean, IsOptional, IsString, MaxLength, ValidateNested } from 'class-validator';

/**
 * A test-only slice that exercises the platform the way a context will: a controller that
 * validates and dispatches, a transactional command handler that writes a row and an outbox
 * event, and a durable subscriber of that event. Its table is created by the test itself.
 */
export const PROBE_TABLE_SQL = `CREATE TABLE IF NOT EXISTS probe_notes (id uuid PRIMARY KEY, text text NOT NULL)`;

class ProbeAddressDto {
  @IsString() @MaxLength(20) city!: string;
}

export class CreateProbeNoteDto {
  @IsString() @MaxLength(50) text!: string;
  @IsOptional() @IsBoolean() fail_after_write?: boolean;
  @IsOptional() @ValidateNested() @Type(() => ProbeAddressDto) address?: ProbeAddressDto;
}

export class ListProbeNotesQuery {
  @IsOptional() limit?: string;
  @IsOptional() @IsString() cursor?: string;
  @IsOptional() @IsString() starts_with?: string;
}

@IntegrationEvent('probe.note_written')
export class ProbeNoteWritten {
  constructor(
    readonly noteId: string,
    readonly text: string,
  ) {}
}

export class WriteProbeNoteCommand extends Command<{ id: string }> {
  constructor(
    readonly text: string,
    readonly failAfterWrite: boolean,
  ) {
    super();
  }
}

export const PROBE_JOB = 'probe.note-follow-up';

/** The tenant the probe's outbox events belong to (every outbox event has one; none is looked up). */
export const PROBE_ORGANIZATION_ID = '019ab000-0000-7000-8000-000000000001';

/** A queue of one slot whose jobs take a while: what they started, in order (fairness between organizations). */
export const PROBE_SLOW_JOB = 'probe.slow';
export const PROBE_SLOW_JOB_MS = 40;
/** Three slots, one organization's jobs at most one at a time: what ran at once, per label prefix. */
export const PROBE_SHARED_JOB = 'probe.shared-slots';

/** Runs the follow-up job that every written note enqueues, and the slow probe jobs. */
@Injectable()
export class ProbeFollowUps implements OnModuleInit {
  readonly done: string[] = [];
  readonly slowStarted: string[] = [];
  /** PROBE_SHARED_JOB: the labels running now, and every label's overlap with the others when it ran. */
  readonly sharedRunning = new Set<string>();
  readonly sharedOverlaps: Array<{ label: string; alongside: string[] }> = [];

  constructor(private readonly jobs: JobQueue) {}

  onModuleInit(): void {
    this.jobs.define<{ noteId: string }>({ name: PROBE_JOB, handler: async ({ noteId }) => void this.done.push(noteId) });
    this.jobs.define<{ label: string }>({
      name: PROBE_SLOW_JOB,
      maxLatencySeconds: 0.5,
      handler: async ({ label }) => {
        this.slowStarted.push(label);
        await new Promise((resolve) => setTimeout(resolve, PROBE_SLOW_JOB_MS));
      },
    });
    this.jobs.define<{ label: string }>({
      name: PROBE_SHARED_JOB,
      maxLatencySeconds: 0.5,
      concurrency: 3,
      perOrganizationConcurrency: 1,
      handler: async ({ label }) => {
        this.sharedRunning.add(label);
        await new Promise((resolve) => setTimeout(resolve, PROBE_SLOW_JOB_MS));
        this.sharedOverlaps.push({ label, alongside: [...this.sharedRunning].filter((other) => other !== label) });
        this.sharedRunning.delete(label);
      },
    });
  }
}

@CommandHandler(WriteProbeNoteCommand)
export class WriteProbeNoteHandler implements ICommandHandler<WriteProbeNoteCommand> {
  constructor(
    private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>,
    private readonly outbox: Outbox,
    private readonly jobs: JobQueue,
  ) {}

  @Transactional()
  async execute(command: WriteProbeNoteCommand): Promise<{ id: string }> {
    const id = newId();
    await this.txHost.tx.query('INSERT INTO probe_notes (id, text) VALUES ($1, $2)', [id, command.text]);
    await this.outbox.add(new ProbeNoteWritten(id, command.text), PROBE_ORGANIZATION_ID);
    await this.jobs.send(PROBE_JOB, { organizationId: PROBE_ORGANIZATION_ID, workspaceMode: 'live' }, { noteId: id });
    if (command.failAfterWrite) {
      throw new DomainError('rule_violation', 'PROBE_REFUSED', 'The probe was asked to fail after writing.');
    }
    return { id };
  }
}

/** Remembers what it received; fails on demand to exercise retries. */
@Injectable()
@HandlesIntegrationEvent(ProbeNoteWritten)
export class ProbeNoteWrittenSubscriber implements IntegrationEventHandler<ProbeNoteWritten> {
  readonly received: ProbeNoteWritten[] = [];
  failuresToSimulate = 0;

  async handle(event: ProbeNoteWritten): Promise<void> {
    if (this.failuresToSimulate > 0) {
      this.failuresToSimulate -= 1;
      throw new Error('simulated subscriber failure');
    }
    this.received.push(event);
  }
}

@ApiTags('Probes (test only)')
@Public()
@Controller('probes')
export class ProbeController {
  constructor(
    private readonly commands: CommandBus,
    private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>,
    private readonly cursors: CursorCodec,
  ) {}

  @Post()
  @HttpCode(201)
  @ApiCreatedResponse({ description: 'The note was written.' })
  async create(@Body() body: CreateProbeNoteDto): Promise<{ object: string; id: string }> {
    const { id } = await this.commands.execute(new WriteProbeNoteCommand(body.text, body.fail_after_write ?? false));
    return { object: 'probe_note', id };
  }

  @Get()
  @ApiOkResponse({ description: 'Notes, newest first.' })
  async list(@Query() query: ListProbeNotesQuery) {
    const limit = parseLimit(query.limit);
    const binding = { list: 'probe_notes', filters: { starts_with: query.starts_with ?? null }, order: 'id:desc' };
    const after = query.cursor ? (this.cursors.decode(query.cursor, binding) as [string]) : undefined;
    const rows: { id: string; text: string }[] = await this.txHost.tx.query(
      `SELECT id, text FROM probe_notes
        WHERE ($1::text IS NULL OR text LIKE $1 || '%') AND ($2::uuid IS NULL OR id < $2)
        ORDER BY id DESC LIMIT $3`,
      [query.starts_with ?? null, after?.[0] ?? null, limit + 1],
    );
    return toPage(rows, limit, (last) => this.cursors.encode(binding, [last.id]));
  }

  @Get('boom')
  @ApiOkResponse({ description: 'Never: always fails with an unexpected error.' })
  boom(): never {
    throw new Error('connection string postgres://secret@db leaked?');
  }
}

@Module({
  controllers: [ProbeController],
  providers: [WriteProbeNoteHandler, ProbeNoteWrittenSubscriber, ProbeFollowUps],
})
export class ProbeModule {}

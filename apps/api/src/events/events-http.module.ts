import { Module } from '@nestjs/common';
import { EventsController } from './events.controller';

/** The public event log's reads (its writers are every context, through the shared kernel's EventLog). */
@Module({ controllers: [EventsController] })
export class EventsHttpModule {}

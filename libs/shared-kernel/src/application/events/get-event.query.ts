import { Query } from '@nestjs/cqrs';
import type { Actor } from '../../actor';
import { EventResponse } from './event-response';

export class GetEventQuery extends Query<EventResponse> {
  constructor(
    readonly actor: Actor,
    readonly eventId: string,
  ) {
    super();
  }
}

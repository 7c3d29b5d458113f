import { Query } from '@nestjs/cqrs';
import type { Actor } from '../../actor';
import type { Page } from '../../pagination';
import { EventResponse } from './event-response';

export interface EventFilters {
  /** The `type` parameter as sent: a comma list of exact types, `prefix.*` and `*`. */
  type?: string;
  createdAfter?: Date;
  createdBefore?: Date;
}

/** The caller's workspace's events, newest first (by sequence, the workspace's commit order). */
export class ListEventsQuery extends Query<Page<EventResponse>> {
  constructor(
    readonly actor: Actor,
    readonly limit: number,
    readonly cursor: string | undefined,
    readonly filters: EventFilters,
  ) {
    super();
  }
}

import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { DataSource } from 'typeorm';
import { isUuid } from '../../ids';
import { GetEventQuery } from './get-event.query';
import { COLUMNS, EventResponse, EventRow, eventNotFound, toResponse } from './event-response';

@QueryHandler(GetEventQuery)
export class GetEventHandler implements IQueryHandler<GetEventQuery> {
  constructor(private readonly dataSource: DataSource) {}

  async execute({ actor, eventId }: GetEventQuery): Promise<EventResponse> {
    if (!isUuid(eventId)) throw eventNotFound();
    const rows: EventRow[] = await this.dataSource.query(
      `SELECT ${COLUMNS} FROM events WHERE organization_id = $1 AND workspace_id = $2 AND id = $3`,
      [actor.organizationId, actor.workspaceId, eventId],
    );
    if (!rows[0]) throw eventNotFound();
    return toResponse(rows[0]);
  }
}

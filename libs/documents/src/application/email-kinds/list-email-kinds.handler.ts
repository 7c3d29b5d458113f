import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { EMAIL_KINDS } from '../../domain/email-kinds';
import { ListEmailKindsQuery } from './list-email-kinds.query';

@QueryHandler(ListEmailKindsQuery)
export class ListEmailKindsHandler implements IQueryHandler<ListEmailKindsQuery> {
  async execute() {
    return EMAIL_KINDS;
  }
}

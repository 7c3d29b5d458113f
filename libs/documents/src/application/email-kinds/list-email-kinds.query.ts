import { Query } from '@nestjs/cqrs';
import { EmailKind } from '../../domain/email-kinds';

export class ListEmailKindsQuery extends Query<readonly EmailKind[]> {}

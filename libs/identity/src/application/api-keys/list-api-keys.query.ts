import { Query } from '@nestjs/cqrs';
import { Actor, Page } from '@app/shared-kernel';
import { ApiKeyView } from './api-key.view';

export class ListApiKeysQuery extends Query<Page<ApiKeyView>> {
  constructor(
    readonly actor: Actor,
    readonly limit: number,
    readonly cursor: string | undefined,
  ) {
    super();
  }
}

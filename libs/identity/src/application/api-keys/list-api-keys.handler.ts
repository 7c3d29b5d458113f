import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { Clock, CursorCodec, keysetPage, newestFirstPosition } from '@app/shared-kernel';
import { grantableKeyTypes } from '../../domain/api-key';
import { ApiKeyReads } from './api-key-reads';
import { toApiKeyView } from './api-key.view';
import { ListApiKeysQuery } from './list-api-keys.query';

@QueryHandler(ListApiKeysQuery)
export class ListApiKeysHandler implements IQueryHandler<ListApiKeysQuery> {
  constructor(
    private readonly apiKeys: ApiKeyReads,
    private readonly cursors: CursorCodec,
    private readonly clock: Clock,
  ) {}

  async execute({ actor, limit, cursor }: ListApiKeysQuery) {
    // A principal sees the key types it may grant: a sandbox principal's live keys do not exist for it.
    const keyTypes = [...grantableKeyTypes(actor.workspaceMode)].sort();
    const page = await keysetPage(
      this.cursors,
      { list: 'api_keys', filters: { key_types: keyTypes.join(',') }, order: 'created_at:desc' },
      { limit, cursor },
      (after, rows) => this.apiKeys.list(actor.organizationId, keyTypes, after, rows),
      (key) => newestFirstPosition({ created_at: key.snapshot.createdAt, id: key.id }),
    );
    const now = this.clock.now();
    return { ...page, data: page.data.map((key) => toApiKeyView(key, now)) };
  }
}

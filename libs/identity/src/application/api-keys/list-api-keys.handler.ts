import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { Clock, CursorCodec, keysetPage, newestFirstPosition } from '@app/shared-kernel';
import { DataSource } from 'typeorm';
import { grantableKeyTypes } from '../../domain/api-key';
import { API_KEY_COLUMNS, ApiKeyRow, toApiKey } from '../../infrastructure/typeorm-api-key.repository';
import { toApiKeyView } from './api-key.view';
import { ListApiKeysQuery } from './list-api-keys.query';

@QueryHandler(ListApiKeysQuery)
export class ListApiKeysHandler implements IQueryHandler<ListApiKeysQuery> {
  constructor(
    private readonly dataSource: DataSource,
    private readonly cursors: CursorCodec,
    private readonly clock: Clock,
  ) {}

  async execute({ actor, limit, cursor }: ListApiKeysQuery) {
    // A principal sees the key types it may grant: a sandbox principal's live keys do not exist for it.
    const keyTypes = [...grantableKeyTypes(actor.workspaceMode)].sort();
    const page = await keysetPage<ApiKeyRow>(
      this.cursors,
      { list: 'api_keys', filters: { key_types: keyTypes.join(',') }, order: 'created_at:desc' },
      { limit, cursor },
      (after, rows) =>
        this.dataSource.query(
          `SELECT ${API_KEY_COLUMNS} FROM api_keys
            WHERE organization_id = $1 AND key_type = ANY($5::text[])
              AND ($2::timestamptz IS NULL OR (created_at, id) < ($2, $3::uuid))
            ORDER BY created_at DESC, id DESC LIMIT $4`,
          [actor.organizationId, after?.[0] ?? null, after?.[1] ?? null, rows, keyTypes],
        ),
      newestFirstPosition,
    );
    const now = this.clock.now();
    return { ...page, data: page.data.map((row) => toApiKeyView(toApiKey(row), now)) };
  }
}

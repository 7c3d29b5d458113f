import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { CursorCodec, keysetPage, newestFirstPosition } from '@app/shared-kernel';
import { DataSource } from 'typeorm';
import { ListUsersQuery } from './list-users.query';
import { UserRow, toView } from './user-rows';

@QueryHandler(ListUsersQuery)
export class ListUsersHandler implements IQueryHandler<ListUsersQuery> {
  constructor(
    private readonly dataSource: DataSource,
    private readonly cursors: CursorCodec,
  ) {}

  async execute({ actor, limit, cursor }: ListUsersQuery) {
    const page = await keysetPage<UserRow>(
      this.cursors,
      { list: 'users', filters: {}, order: 'created_at:desc' },
      { limit, cursor },
      (after, rows) =>
        this.dataSource.query(
          `SELECT id, email, role, created_at FROM users
            WHERE organization_id = $1 AND ($2::timestamptz IS NULL OR (created_at, id) < ($2, $3::uuid))
            ORDER BY created_at DESC, id DESC LIMIT $4`,
          [actor.organizationId, after?.[0] ?? null, after?.[1] ?? null, rows],
        ),
      newestFirstPosition,
    );
    return { ...page, data: page.data.map(toView) };
  }
}

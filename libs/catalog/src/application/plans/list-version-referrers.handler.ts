import { TransactionHost } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { CursorCodec, invalidParameter, Page, parseLimit, preparedQuery, toPage, SharedErrors } from '@app/shared-kernel';
import { REFERRER_TYPES, ReferrerType, VersionReferrerView, ListVersionReferrersQuery } from './list-version-referrers.query';
import { versionOf, REFERRER_SOURCES } from './plan-insights';

@QueryHandler(ListVersionReferrersQuery)
export class ListVersionReferrersHandler implements IQueryHandler<ListVersionReferrersQuery> {
  constructor(
    private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>,
    private readonly cursors: CursorCodec,
  ) {}

  /**
   * Newest first, OFFSET-paginated (the spec's one offset list): the signed cursor holds the
   * offset and is bound to the plan, the version and the type.
   */
  async execute({ actor, planId, version, type, limit, cursor }: ListVersionReferrersQuery): Promise<Page<VersionReferrerView>> {
    if (type === undefined) throw invalidParameter('type', 'REQUIRED', `type is required: one of ${REFERRER_TYPES.join(', ')}.`);
    if (!(REFERRER_TYPES as readonly string[]).includes(type)) {
      throw invalidParameter('type', 'INVALID_VALUE', `type must be one of ${REFERRER_TYPES.join(', ')}.`);
    }
    const binding = { list: 'plan_version_referrers', filters: { plan_id: planId, version, type }, order: 'created_at:desc' };
    const offset = cursor === undefined ? 0 : offsetOf(this.cursors.decode(cursor, binding));
    const row = await versionOf(this.txHost, actor, planId, version);
    const pageSize = parseLimit(limit);
    const rows = await preparedQuery<VersionReferrerView & { referrer_type: ReferrerType }>(
      this.txHost.tx,
      `${REFERRER_SOURCES[type as ReferrerType]} ORDER BY created_at DESC, referrer_id DESC OFFSET $4 LIMIT $5`,
      [actor.organizationId, actor.workspaceId, row.id, offset, pageSize + 1],
    );
    const page = toPage(rows, pageSize, () => this.cursors.encode(binding, [offset + pageSize]));
    return {
      ...page,
      data: page.data.map((referrer) => ({
        referrer_type: referrer.referrer_type,
        referrer_id: referrer.referrer_id,
        created_at: referrer.created_at,
      })),
    };
  }
}

/** A signed offset: a non-negative integer, else the cursor is not one this list issued. */
function offsetOf(position: unknown[]): number {
  const [offset] = position;
  if (typeof offset !== 'number' || !Number.isInteger(offset) || offset < 0) {
    throw SharedErrors.INVALID_CURSOR.create('The cursor is invalid or was issued for another list.', {
      param: 'cursor',
    });
  }
  return offset;
}

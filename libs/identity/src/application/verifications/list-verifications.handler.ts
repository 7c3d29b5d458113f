import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { CursorCodec, keysetPage, newestFirstPosition } from '@app/shared-kernel';
import { DataSource } from 'typeorm';
import { VerificationStatus, VerificationType } from '../../domain/customer-verification';
import { ListVerificationsQuery } from './list-verifications.query';
import { VerificationSummaryView } from './verification.view';

interface SummaryRow {
  id: string;
  customer_id: string;
  status: VerificationStatus;
  verification_type: VerificationType;
  created_at: Date;
}

@QueryHandler(ListVerificationsQuery)
export class ListVerificationsHandler implements IQueryHandler<ListVerificationsQuery> {
  constructor(
    private readonly dataSource: DataSource,
    private readonly cursors: CursorCodec,
  ) {}

  /** Newest first; only the filters given reach the SQL, so each is served by its own index. */
  async execute({ actor, limit, cursor, filters }: ListVerificationsQuery) {
    const page = await keysetPage<SummaryRow>(
      this.cursors,
      {
        list: 'customer_verifications',
        filters: {
          customer_id: filters.customerId ?? null,
          status: filters.status ?? null,
          verification_type: filters.verificationType ?? null,
          occurred_after: filters.occurredAfter?.toISOString() ?? null,
          occurred_before: filters.occurredBefore?.toISOString() ?? null,
        },
        order: 'created_at:desc',
      },
      { limit, cursor },
      (after, rows) => {
        const values: unknown[] = [actor.organizationId, actor.workspaceId];
        const conditions = ['organization_id = $1', 'workspace_id = $2'];
        const where = (condition: (placeholder: string) => string, value: unknown) => {
          values.push(value);
          conditions.push(condition(`$${values.length}`));
        };
        if (filters.customerId) where((p) => `customer_id = ${p}::uuid`, filters.customerId);
        if (filters.status) where((p) => `status = ${p}`, filters.status);
        if (filters.verificationType) where((p) => `verification_type = ${p}`, filters.verificationType);
        if (filters.occurredAfter) where((p) => `created_at >= ${p}::timestamptz`, filters.occurredAfter);
        if (filters.occurredBefore) where((p) => `created_at < ${p}::timestamptz`, filters.occurredBefore);
        if (after) {
          values.push(after[0], after[1]);
          conditions.push(`(created_at, id) < ($${values.length - 1}::timestamptz, $${values.length}::uuid)`);
        }
        values.push(rows);
        return this.dataSource.query(
          `SELECT id, customer_id, status, verification_type, created_at FROM customer_verifications
            WHERE ${conditions.join(' AND ')}
            ORDER BY created_at DESC, id DESC LIMIT $${values.length}`,
          values,
        );
      },
      newestFirstPosition,
    );
    const data: VerificationSummaryView[] = page.data.map((row) => ({
      id: row.id,
      customerId: row.customer_id,
      status: row.status,
      verificationType: row.verification_type,
      createdAt: row.created_at,
    }));
    return { ...page, data };
  }
}

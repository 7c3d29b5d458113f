import { SqlWrite } from '@app/shared-kernel';
import { VersionRow } from '../application/version-views';
import { VersionRecord } from '../domain/version-line';

/** The lifecycle columns every version table has (plan versions will share them). */
export const VERSION_COLUMNS = [
  'id',
  'version',
  'status',
  'archived_reason',
  'origin',
  'base_version_id',
  'content_hash',
  'change_id',
  'scheduled_for',
  'effective_from',
  'effective_to',
  'published_at',
  'release_name',
  'release_note',
  'cascade_source',
  'created_by',
  'created_at',
  'touched_at',
  'error_code',
  'error_message',
  'error_details',
] as const;

export function toVersionRecord(row: VersionRow): VersionRecord {
  return {
    id: row.id,
    version: row.version,
    status: row.status,
    archivedReason: row.archived_reason,
    origin: row.origin,
    baseVersionId: row.base_version_id,
    contentHash: row.content_hash,
    changeId: row.change_id,
    scheduledFor: row.scheduled_for,
    effectiveFrom: row.effective_from,
    effectiveTo: row.effective_to,
    publishedAt: row.published_at,
    releaseName: row.release_name,
    releaseNote: row.release_note,
    cascadeSource: row.cascade_source && {
      entityType: row.cascade_source.entity_type,
      entityId: row.cascade_source.entity_id,
      versionId: row.cascade_source.version_id,
      version: row.cascade_source.version,
    },
    createdBy: row.created_by,
    createdAt: row.created_at,
    touchedAt: row.touched_at,
    errorCode: row.error_code,
    errorMessage: row.error_message,
    errorDetails: row.error_details,
  };
}

function versionValues(record: VersionRecord): unknown[] {
  return [
    record.id,
    record.version,
    record.status,
    record.archivedReason,
    record.origin,
    record.baseVersionId,
    record.contentHash,
    record.changeId,
    record.scheduledFor,
    record.effectiveFrom,
    record.effectiveTo,
    record.publishedAt,
    record.releaseName,
    record.releaseNote,
    record.cascadeSource &&
      JSON.stringify({
        entity_type: record.cascadeSource.entityType,
        entity_id: record.cascadeSource.entityId,
        version_id: record.cascadeSource.versionId,
        version: record.cascadeSource.version,
      }),
    JSON.stringify(record.createdBy),
    record.createdAt,
    record.touchedAt,
    record.errorCode,
    record.errorMessage,
    record.errorDetails && JSON.stringify(record.errorDetails),
  ];
}

/**
 * Writes to apply one after the other, in the order given: `VersionLine.changedRows()` lists
 * rows leaving the draft or head slot first and new rows last, so the one-draft, one-head and
 * version-number unique indexes never see two holders.
 */
export function versionUpserts(
  table: string,
  tenant: { organizationId: string; workspaceId: string },
  ownerColumn: string,
  ownerId: string,
  records: readonly VersionRecord[],
  /** Columns a new row needs beyond the lifecycle (plan versions: their NOT NULL snapshot columns). */
  insertExtras: (record: VersionRecord) => Record<string, unknown> = () => ({}),
): SqlWrite[] {
  const updates = VERSION_COLUMNS.filter((column) => column !== 'id')
    .map((column) => `${column} = EXCLUDED.${column}`)
    .join(', ');
  return records.map((record) => {
    const extras = insertExtras(record);
    const columns = ['organization_id', 'workspace_id', ownerColumn, ...VERSION_COLUMNS, ...Object.keys(extras)];
    const placeholders = columns.map((_, index) => `$${index + 1}`).join(', ');
    return {
      text: `INSERT INTO ${table} (${columns.join(', ')}) VALUES (${placeholders})
             ON CONFLICT (organization_id, workspace_id, id) DO UPDATE SET ${updates}`,
      values: [tenant.organizationId, tenant.workspaceId, ownerId, ...versionValues(record), ...Object.values(extras)],
    };
  });
}

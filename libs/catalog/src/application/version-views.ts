import { VersionRecord } from '../domain/version-line';

export interface VersionRef {
  id: string;
  version: number;
}

export interface VersionLifecycleView {
  id: string;
  version: number;
  status: string;
  archived_reason: string | null;
  origin: string | null;
  base_version_id: string | null;
  change_id: string | null;
  scheduled_change_id: string | null;
  scheduled_for: Date | null;
  rank: number | null;
  effective_from: Date | null;
  effective_to: Date | null;
  published_at: Date | null;
  release_name: string | null;
  release_note: string | null;
  cascade_source: { entity_type: string; entity_id: string; version_id: string; version: number } | null;
  created_by: { type: string; id: string | null; via?: string };
  created_at: Date;
  error: { code: string; message: string; details: Record<string, unknown> } | null;
}

/** A version row as the version tables hold it: the lifecycle columns every version table has (`VERSION_COLUMNS`). */
export interface VersionRow {
  id: string;
  version: number;
  status: VersionRecord['status'];
  archived_reason: VersionRecord['archivedReason'];
  origin: VersionRecord['origin'];
  base_version_id: string | null;
  content_hash: string;
  change_id: string | null;
  scheduled_for: Date | null;
  effective_from: Date | null;
  effective_to: Date | null;
  published_at: Date | null;
  release_name: string | null;
  release_note: string | null;
  cascade_source: { entity_type: 'cost' | 'product'; entity_id: string; version_id: string; version: number } | null;
  created_by: VersionRecord['createdBy'];
  created_at: Date;
  touched_at: Date;
  error_code: string | null;
  error_message: string | null;
  error_details: Record<string, unknown> | null;
}

import { DocumentTemplate, DocumentType, TemplateKind, TemplateState, TemplateStatus } from '../domain/document-template';
import { CURRENT_SCHEMA_VERSION } from '../domain/template-document';
import { upcastTemplateDocument } from '../domain/template-upcasters';

export const TEMPLATE_COLUMNS = `organization_id, workspace_id, id, name, description, kind, document_types, status, anchor_key,
  template_json, schema_version, version, copied_from_id, created_at, updated_at, deleted_at`;

export interface TemplateRow {
  organization_id: string;
  workspace_id: string;
  id: string;
  name: string;
  description: string | null;
  kind: TemplateKind;
  document_types: DocumentType[];
  status: TemplateStatus;
  anchor_key: string | null;
  template_json: unknown;
  schema_version: number;
  version: number;
  copied_from_id: string | null;
  created_at: Date;
  updated_at: Date;
  deleted_at: Date | null;
}

/** A stored row as the domain reads it: its document upgraded to the current schema version. */
export function toState(row: TemplateRow): TemplateState {
  return {
    organizationId: row.organization_id,
    workspaceId: row.workspace_id,
    id: row.id,
    name: row.name,
    description: row.description,
    kind: row.kind,
    documentTypes: row.document_types,
    status: row.status,
    anchorKey: row.anchor_key,
    document: upcastTemplateDocument(row.template_json, row.schema_version),
    // The document is upgraded as it is read: the state holds the current version, and the next
    // write stores the upgraded document stamped with it.
    schemaVersion: CURRENT_SCHEMA_VERSION,
    isSystem: false,
    version: row.version,
    copiedFromId: row.copied_from_id,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    deletedAt: row.deleted_at,
  };
}

export function toTemplate(row: TemplateRow): DocumentTemplate {
  return DocumentTemplate.restore(toState(row));
}

/** The row's values in TEMPLATE_COLUMNS order. */
export function rowValues(s: TemplateState): unknown[] {
  return [
    s.organizationId,
    s.workspaceId,
    s.id,
    s.name,
    s.description,
    s.kind,
    s.documentTypes,
    s.status,
    s.anchorKey,
    JSON.stringify(s.document),
    s.schemaVersion,
    s.version,
    s.copiedFromId,
    s.createdAt,
    s.updatedAt,
    s.deletedAt,
  ];
}

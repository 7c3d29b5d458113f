import { DomainError, FieldError, newId, SharedErrors } from '@app/shared-kernel';
import { checkVariables, emailKind, anchorKeys } from './email-kinds';
import { isReadableLogo, MAX_LOGO_PIXELS, MAX_LOGO_SIDE } from './logo';
import { CURRENT_SCHEMA_VERSION, invalidDocument, TemplateDocument, validateTemplateDocument } from './template-document';
import { DocumentErrors } from './document-errors';

export const DOCUMENT_TYPES = ['invoice', 'credit_note', 'quote', 'email'] as const;
export type DocumentType = (typeof DOCUMENT_TYPES)[number];
export const PRINTED_DOCUMENT_TYPES = ['invoice', 'credit_note', 'quote'] as const;
export type PrintedDocumentType = (typeof PRINTED_DOCUMENT_TYPES)[number];

export type TemplateKind = 'printed' | 'email';
export const TEMPLATE_STATUSES = ['active', 'archived', 'draft', 'published'] as const;
export type TemplateStatus = (typeof TEMPLATE_STATUSES)[number];

/**
 * Status transitions. Printed: active ↔ archived. E-mail: draft ↔ published, draft or published
 * → archived, archived → draft (an archived e-mail is reworked before it is published again).
 * Asking for the current status is accepted and changes nothing.
 */
export const TRANSITIONS: Record<TemplateKind, Partial<Record<TemplateStatus, TemplateStatus[]>>> = {
  printed: { active: ['archived'], archived: ['active'] },
  email: { draft: ['published', 'archived'], published: ['draft', 'archived'], archived: ['draft'] },
};

export interface TemplateState {
  /** Null for system templates, which belong to no tenant. */
  organizationId: string | null;
  workspaceId: string | null;
  id: string;
  name: string;
  description: string | null;
  kind: TemplateKind;
  documentTypes: DocumentType[];
  status: TemplateStatus;
  anchorKey: string | null;
  /** Always upgraded to the current schema version once loaded. */
  document: TemplateDocument;
  /** The schema version the stored row was written in (the current one after any write). */
  schemaVersion: number;
  isSystem: boolean;
  version: number;
  copiedFromId: string | null;
  createdAt: Date;
  updatedAt: Date;
  deletedAt: Date | null;
}

export interface TemplateRevision {
  name?: string;
  description?: string | null;
  documentTypes?: unknown;
  status?: unknown;
  document?: unknown;
}

export function systemTemplateReadOnly(id: string): DomainError {
  return DocumentErrors.SYSTEM_TEMPLATE_READ_ONLY.create(
    'System templates cannot be changed or deleted; copy one to make your own.',
    {
      details: { template_id: id },
    },
  );
}

export function templateNotFound(): DomainError {
  return DocumentErrors.DOCUMENT_TEMPLATE_NOT_FOUND.create('No such document template.');
}

/**
 * A document template of a workspace: a printed layout for invoices, credit notes and quotes, or
 * an e-mail written for one mail kind (`anchor_key`). Its kind is fixed at creation.
 */
export class DocumentTemplate {
  private constructor(private state: TemplateState) {}

  static restore(state: TemplateState): DocumentTemplate {
    return new DocumentTemplate(state);
  }

  static create(input: {
    organizationId: string;
    workspaceId: string;
    name: string;
    description: string | null;
    documentTypes: unknown;
    anchorKey: string | null | undefined;
    document: unknown;
    copiedFromId?: string | null;
    now: Date;
  }): DocumentTemplate {
    const documentTypes = parseDocumentTypes(input.documentTypes ?? ['invoice']);
    const kind: TemplateKind = documentTypes.includes('email') ? 'email' : 'printed';
    const anchorKey = checkAnchor(kind, input.anchorKey ?? null);
    const document = checkTemplateDocument(kind, anchorKey, input.document);
    return new DocumentTemplate({
      organizationId: input.organizationId,
      workspaceId: input.workspaceId,
      id: newId(),
      name: input.name,
      description: input.description,
      kind,
      documentTypes,
      status: kind === 'email' ? 'draft' : 'active',
      anchorKey,
      document,
      schemaVersion: CURRENT_SCHEMA_VERSION,
      isSystem: false,
      version: 1,
      copiedFromId: input.copiedFromId ?? null,
      createdAt: input.now,
      updatedAt: input.now,
      deletedAt: null,
    });
  }

  /** A writable copy in the caller's workspace: same layout, kind and mail kind; status back to the kind's first. */
  copyInto(tenant: { organizationId: string; workspaceId: string }, name: string | undefined, now: Date): DocumentTemplate {
    const s = this.state;
    return DocumentTemplate.create({
      ...tenant,
      name: name ?? `Copy of ${s.name}`.slice(0, 200),
      description: s.description,
      documentTypes: s.documentTypes,
      anchorKey: s.anchorKey,
      document: structuredClone(s.document),
      copiedFromId: s.id,
      now,
    });
  }

  get id(): string {
    return this.state.id;
  }

  get snapshot(): Readonly<TemplateState> {
    return this.state;
  }

  /**
   * Applies an update: omitted fields stay as they are; the document is validated against the
   * current schema and stamped with its version. Returns the printed document types this
   * template no longer serves (their default slots, if it holds them, are released).
   */
  revise(revision: TemplateRevision, now: Date): PrintedDocumentType[] {
    this.assertWritable();
    const s = this.state;
    const next: TemplateState = { ...s };
    if (revision.name !== undefined) next.name = revision.name;
    if (revision.description !== undefined) next.description = revision.description;
    if (revision.documentTypes !== undefined) {
      const types = parseDocumentTypes(revision.documentTypes);
      const kind: TemplateKind = types.includes('email') ? 'email' : 'printed';
      if (kind !== s.kind) {
        throw fieldRefusal(
          'document_types',
          'KIND_IMMUTABLE',
          s.kind === 'email'
            ? 'An e-mail template stays an e-mail template: document_types must be ["email"].'
            : 'A printed template cannot become an e-mail template; create one with document_types ["email"].',
        );
      }
      next.documentTypes = types;
    }
    if (revision.document !== undefined) {
      next.document = checkTemplateDocument(s.kind, s.anchorKey, revision.document);
      next.schemaVersion = CURRENT_SCHEMA_VERSION;
    }
    if (revision.status !== undefined) next.status = this.transition(revision.status);
    next.version = s.version + 1;
    next.updatedAt = now;
    // Archiving releases every slot; dropping a type releases that slot.
    const released = (PRINTED_DOCUMENT_TYPES as readonly DocumentType[]).filter(
      (type) => s.documentTypes.includes(type) && (!next.documentTypes.includes(type) || next.status === 'archived'),
    ) as PrintedDocumentType[];
    this.state = next;
    return released;
  }

  softDelete(now: Date): void {
    this.assertWritable();
    this.state = { ...this.state, deletedAt: now, updatedAt: now, version: this.state.version + 1 };
  }

  /** Whether this template may hold the workspace's default slot for a printed document type. */
  assertCanBeDefaultFor(type: PrintedDocumentType): void {
    const s = this.state;
    if (!s.documentTypes.includes(type)) {
      throw DocumentErrors.DEFAULT_NOT_ALLOWED.create(`This template does not lay out ${type} documents.`, {
        param: 'document_type',
        details: { reason: 'document_type_not_in_template', document_type: type, document_types: s.documentTypes },
      });
    }
    if (s.status === 'archived') {
      throw DocumentErrors.DEFAULT_NOT_ALLOWED.create('An archived template cannot be a default; reactivate it first.', {
        details: { reason: 'archived', document_type: type },
      });
    }
  }

  private assertWritable(): void {
    if (this.state.isSystem) throw systemTemplateReadOnly(this.state.id);
  }

  private transition(requested: unknown): TemplateStatus {
    const { kind, status } = this.state;
    const allowed = TRANSITIONS[kind][status] ?? [];
    if (requested === status) return status;
    if (typeof requested !== 'string' || !allowed.includes(requested as TemplateStatus)) {
      throw SharedErrors.INVALID_STATUS_TRANSITION.create(
        `A ${kind} template cannot go from ${status} to ${String(requested)}; allowed: ${allowed.join(', ') || 'none'}.`,
        { param: 'status', details: { from: status, to: requested, allowed } },
      );
    }
    return requested as TemplateStatus;
  }
}

export function fieldRefusal(param: string, code: string, message: string): DomainError {
  return SharedErrors.VALIDATION_ERROR.create(message, { param, errors: [{ param, code, message }] });
}

export function parseDocumentTypes(value: unknown): DocumentType[] {
  if (!Array.isArray(value) || value.length === 0) {
    throw fieldRefusal(
      'document_types',
      'INVALID_VALUE',
      'document_types must be a non-empty list of invoice, credit_note, quote or email.',
    );
  }
  const unknown = value.filter((type) => !(DOCUMENT_TYPES as readonly unknown[]).includes(type));
  if (unknown.length > 0) {
    throw fieldRefusal('document_types', 'INVALID_VALUE', `document_types may hold only ${DOCUMENT_TYPES.join(', ')}.`);
  }
  const types = [...new Set(value as DocumentType[])];
  if (types.includes('email') && types.length > 1) {
    throw fieldRefusal(
      'document_types',
      'INVALID_VALUE',
      'An e-mail template is ["email"] alone: printed layouts and e-mails have different statuses and content.',
    );
  }
  // Stored in a stable order: the list is a set.
  return DOCUMENT_TYPES.filter((type) => types.includes(type));
}

function checkAnchor(kind: TemplateKind, anchorKey: string | null): string | null {
  if (kind === 'printed') {
    if (anchorKey !== null) throw fieldRefusal('anchor_key', 'NOT_ALLOWED', 'anchor_key applies to e-mail templates only.');
    return null;
  }
  if (anchorKey === null) {
    throw fieldRefusal('anchor_key', 'REQUIRED', `An e-mail template names its mail kind: one of ${anchorKeys().join(', ')}.`);
  }
  if (!emailKind(anchorKey)) {
    throw fieldRefusal('anchor_key', 'INVALID_VALUE', `anchor_key must be one of ${anchorKeys().join(', ')}.`);
  }
  return anchorKey;
}

/** Schema first, then what the schema cannot say: an e-mail has its content and uses only its kind's variables. */
export function checkTemplateDocument(kind: TemplateKind, anchorKey: string | null, value: unknown): TemplateDocument {
  const document = validateTemplateDocument(value);
  const errors: FieldError[] = [];
  if (kind === 'email') {
    if (!document.email) {
      errors.push({
        param: 'template_json/email',
        code: 'REQUIRED',
        message: 'is required for an e-mail template (subject and body).',
      });
    } else {
      const mailKind = emailKind(anchorKey!)!;
      errors.push(...checkVariables(document.email.subject, mailKind, 'template_json/email/subject'));
      if (document.email.preheader)
        errors.push(...checkVariables(document.email.preheader, mailKind, 'template_json/email/preheader'));
      errors.push(...checkVariables(document.email.body, mailKind, 'template_json/email/body'));
    }
  } else {
    if (document.email !== undefined) {
      errors.push({ param: 'template_json/email', code: 'NOT_ALLOWED', message: 'applies to e-mail templates only.' });
    }
    if (document.blocks.length === 0) {
      errors.push({ param: 'template_json/blocks', code: 'OUT_OF_RANGE', message: 'a printed layout needs at least one block.' });
    }
  }
  const logo = document.branding.logo;
  if (logo !== null && !isReadableLogo(logo)) {
    errors.push({
      param: 'template_json/branding/logo',
      code: 'INVALID_VALUE',
      message: `is not a readable PNG (8-bit or palette, not interlaced) or JPEG image of at most ${MAX_LOGO_SIDE} pixels a side and ${MAX_LOGO_PIXELS} pixels in all.`,
    });
  }
  if (errors.length > 0) throw invalidDocument(errors);
  return document;
}

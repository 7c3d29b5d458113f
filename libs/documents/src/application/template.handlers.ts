import { Transactional } from '@nestjs-cls/transactional';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { Actor, AuditLog, Clock, DomainError, EventLog, isUniqueViolation, isUuid, previousAttributes } from '@app/shared-kernel';
import {
  DocumentTemplate,
  fieldRefusal,
  parseDocumentTypes,
  PRINTED_DOCUMENT_TYPES,
  PrintedDocumentType,
  systemTemplateReadOnly,
  templateNotFound,
} from '../domain/document-template';
import { systemDefaultFor, systemEmailFor, systemTemplate } from '../domain/system-templates';
import { TemplateRepository } from '../domain/template.repository';
import { RenderPool } from '../infrastructure/rendering/render-pool';
import {
  ClearDefaultTemplateCommand,
  CopyTemplateCommand,
  CreateTemplateCommand,
  DeleteTemplateCommand,
  MarkDefaultTemplateCommand,
  TemplateView,
  UpdateTemplateCommand,
} from './template.commands';
import { templateResponse } from './template-response';

const RESOURCE = 'document_template';

function staleVersion(current: number | undefined): DomainError {
  return new DomainError(
    'conflict',
    'CONFLICT',
    'The template was changed since you read it; re-read it and apply your change again.',
    {
      param: 'expected_version',
      details: { current_version: current ?? null },
    },
  );
}

function anchorAlreadyPublished(anchorKey: string, templateId: string | null): DomainError {
  return new DomainError(
    'conflict',
    'ANCHOR_ALREADY_PUBLISHED',
    `Another e-mail template is already published for ${anchorKey}; return it to draft or archive it first.`,
    { param: 'status', details: { anchor_key: anchorKey, template_id: templateId } },
  );
}

export function parsePrintedType(value: string): PrintedDocumentType {
  if (!(PRINTED_DOCUMENT_TYPES as readonly string[]).includes(value)) {
    throw fieldRefusal(
      'document_type',
      'INVALID_VALUE',
      `Defaults are kept per printed document type: ${PRINTED_DOCUMENT_TYPES.join(', ')} (the published e-mail template of a mail kind is its default).`,
    );
  }
  return value as PrintedDocumentType;
}

/** A system template, or the workspace's own (not deleted); 404 otherwise, whatever the id looks like. */
async function loadAny(templates: TemplateRepository, actor: Actor, id: string, lock?: 'share'): Promise<DocumentTemplate> {
  const system = isUuid(id) ? systemTemplate(id) : undefined;
  if (system) return DocumentTemplate.restore(system);
  const template = await templates.find(actor, id, lock);
  if (!template) throw templateNotFound();
  return template;
}

async function loadOwn(templates: TemplateRepository, actor: Actor, id: string): Promise<DocumentTemplate> {
  if (isUuid(id) && systemTemplate(id)) throw systemTemplateReadOnly(id.toLowerCase());
  const template = await templates.find(actor, id);
  if (!template) throw templateNotFound();
  return template;
}

/**
 * Without a template document, a new template starts from the system default it would replace:
 * the first printed document type's layout, or the mail kind's e-mail. Undefined when the types
 * or the mail kind are wrong: create then refuses them for what they are.
 */
function baselineDocument(input: CreateTemplateCommand['input']): unknown {
  try {
    const types = parseDocumentTypes(input.documentTypes ?? ['invoice']);
    const baseline = types.includes('email')
      ? input.anchorKey
        ? systemEmailFor(input.anchorKey)
        : undefined
      : systemDefaultFor(types[0] as PrintedDocumentType);
    return baseline && structuredClone(baseline.document);
  } catch {
    return undefined;
  }
}

/** A template as its GET answers it, in the API's default locale (an event has no request language). */
function templateEvent(view: TemplateView): Record<string, unknown> {
  return templateResponse(view, 'en');
}

@CommandHandler(CreateTemplateCommand)
export class CreateTemplateHandler implements ICommandHandler<CreateTemplateCommand> {
  constructor(
    private readonly templates: TemplateRepository,
    private readonly audit: AuditLog,
    private readonly clock: Clock,
    private readonly renders: RenderPool,
    private readonly events: EventLog,
  ) {}

  @Transactional()
  async execute({ actor, input }: CreateTemplateCommand): Promise<TemplateView> {
    const template = DocumentTemplate.create({
      organizationId: actor.organizationId,
      workspaceId: actor.workspaceId,
      name: input.name,
      description: input.description ?? null,
      documentTypes: input.documentTypes,
      anchorKey: input.anchorKey,
      document: input.document ?? baselineDocument(input),
      now: this.clock.now(),
    });
    const s = template.snapshot;
    await this.renders.checkBounds(s.document, s.kind, s.anchorKey, s.documentTypes);
    await this.templates.insert(
      template,
      this.audit.write(actor, {
        action: 'document_template.created',
        resourceType: RESOURCE,
        resourceId: template.id,
        data: { kind: s.kind, document_types: s.documentTypes, anchor_key: s.anchorKey },
      }),
    );
    const view: TemplateView = { template: s, defaultFor: [] };
    await this.events.publish(actor, [{ type: 'document_template.created', object: templateEvent(view) }]);
    return view;
  }
}

@CommandHandler(UpdateTemplateCommand)
export class UpdateTemplateHandler implements ICommandHandler<UpdateTemplateCommand> {
  constructor(
    private readonly templates: TemplateRepository,
    private readonly audit: AuditLog,
    private readonly clock: Clock,
    private readonly renders: RenderPool,
    private readonly events: EventLog,
  ) {}

  /** Version-checked: `UPDATE … WHERE id AND version = expected_version`; a stale version changes nothing. */
  @Transactional()
  async execute({ actor, templateId, input }: UpdateTemplateCommand): Promise<TemplateView> {
    const template = await loadOwn(this.templates, actor, templateId);
    if (template.snapshot.version !== input.expectedVersion) throw staleVersion(template.snapshot.version);
    const previous = templateEvent({
      template: structuredClone(template.snapshot),
      defaultFor: await this.templates.defaultsHeldBy(actor, template.id),
    });
    const before = template.snapshot.status;
    const released = template.revise(
      {
        name: input.name,
        description: input.description,
        documentTypes: input.documentTypes,
        status: input.status,
        document: input.document,
      },
      this.clock.now(),
    );
    const s = template.snapshot;
    if (input.document !== undefined || input.documentTypes !== undefined)
      await this.renders.checkBounds(s.document, s.kind, s.anchorKey, s.documentTypes);
    if (s.kind === 'email' && s.status === 'published' && before !== 'published') {
      const holder = await this.templates.publishedFor(actor, s.anchorKey!);
      if (holder && holder !== s.id) throw anchorAlreadyPublished(s.anchorKey!, holder);
    }
    let saved: boolean;
    try {
      saved = await this.templates.saveIfVersion(
        template,
        input.expectedVersion,
        this.audit.write(actor, {
          action: 'document_template.updated',
          resourceType: RESOURCE,
          resourceId: s.id,
          data: { version: s.version, status: s.status, ...(before !== s.status && { previous_status: before }) },
        }),
      );
    } catch (error) {
      if (isUniqueViolation(error)) throw anchorAlreadyPublished(s.anchorKey ?? '', null);
      throw error;
    }
    if (!saved) throw staleVersion(await this.templates.currentVersion(actor, s.id));
    await this.templates.releaseDefaults(actor, s.id, released);
    const view: TemplateView = { template: s, defaultFor: await this.templates.defaultsHeldBy(actor, s.id) };
    const object = templateEvent(view);
    await this.events.publish(actor, [
      { type: 'document_template.updated', object, previousAttributes: previousAttributes(previous, object) },
    ]);
    return view;
  }
}

@CommandHandler(DeleteTemplateCommand)
export class DeleteTemplateHandler implements ICommandHandler<DeleteTemplateCommand> {
  constructor(
    private readonly templates: TemplateRepository,
    private readonly audit: AuditLog,
    private readonly clock: Clock,
    private readonly events: EventLog,
  ) {}

  /** Soft delete; the default slots it held fall back to the system defaults. */
  @Transactional()
  async execute({ actor, templateId }: DeleteTemplateCommand): Promise<void> {
    const template = await loadOwn(this.templates, actor, templateId);
    const version = template.snapshot.version;
    template.softDelete(this.clock.now());
    const saved = await this.templates.saveIfVersion(
      template,
      version,
      this.audit.write(actor, { action: 'document_template.deleted', resourceType: RESOURCE, resourceId: template.id }),
    );
    if (!saved) throw templateNotFound();
    await this.templates.releaseDefaults(actor, template.id, PRINTED_DOCUMENT_TYPES);
    // The template as last seen (its GET answers 404 from now on), its default slots released.
    await this.events.publish(actor, [
      { type: 'document_template.deleted', object: templateEvent({ template: template.snapshot, defaultFor: [] }) },
    ]);
  }
}

@CommandHandler(CopyTemplateCommand)
export class CopyTemplateHandler implements ICommandHandler<CopyTemplateCommand> {
  constructor(
    private readonly templates: TemplateRepository,
    private readonly audit: AuditLog,
    private readonly clock: Clock,
    private readonly events: EventLog,
  ) {}

  /** A writable copy in the caller's workspace; a system template is copied from its built-in baseline. */
  @Transactional()
  async execute({ actor, templateId, name }: CopyTemplateCommand): Promise<TemplateView> {
    const source = await loadAny(this.templates, actor, templateId);
    const copy = source.copyInto(actor, name, this.clock.now());
    await this.templates.insert(
      copy,
      this.audit.write(actor, {
        action: 'document_template.copied',
        resourceType: RESOURCE,
        resourceId: copy.id,
        data: { copied_from_id: source.id, from_system: source.snapshot.isSystem },
      }),
    );
    const view: TemplateView = { template: copy.snapshot, defaultFor: [] };
    await this.events.publish(actor, [{ type: 'document_template.created', object: templateEvent(view) }]);
    return view;
  }
}

@CommandHandler(MarkDefaultTemplateCommand)
export class MarkDefaultTemplateHandler implements ICommandHandler<MarkDefaultTemplateCommand> {
  constructor(
    private readonly templates: TemplateRepository,
    private readonly audit: AuditLog,
    private readonly clock: Clock,
    private readonly events: EventLog,
  ) {}

  /**
   * The workspace's slot for the document type now names this template (replacing any other);
   * the template row is share-locked so a concurrent delete cannot leave the slot dangling.
   */
  @Transactional()
  async execute({ actor, templateId, documentType }: MarkDefaultTemplateCommand): Promise<TemplateView> {
    const type = parsePrintedType(documentType);
    const template = await loadAny(this.templates, actor, templateId, 'share');
    template.assertCanBeDefaultFor(type);
    const previous = await this.templates.holderOf(actor, type);
    await this.templates.setDefault(
      actor,
      type,
      template.id,
      this.clock.now(),
      this.audit.write(actor, {
        action: 'document_template.default_marked',
        resourceType: RESOURCE,
        resourceId: template.id,
        data: { document_type: type, previous_template_id: previous ?? null },
      }),
    );
    const view: TemplateView = {
      template: template.snapshot,
      defaultFor: await this.templates.defaultsHeldBy(actor, template.id),
    };
    await this.events.publish(actor, [{ type: 'document_template.default_changed', object: templateEvent(view) }]);
    return view;
  }
}

@CommandHandler(ClearDefaultTemplateCommand)
export class ClearDefaultTemplateHandler implements ICommandHandler<ClearDefaultTemplateCommand> {
  constructor(
    private readonly templates: TemplateRepository,
    private readonly audit: AuditLog,
    private readonly events: EventLog,
  ) {}

  /** Only the holder clears a slot; rendering then falls back to the system default. */
  @Transactional()
  async execute({ actor, templateId, documentType }: ClearDefaultTemplateCommand): Promise<TemplateView> {
    const type = parsePrintedType(documentType);
    const template = await loadAny(this.templates, actor, templateId);
    const [released] = await this.templates.releaseDefaults(actor, template.id, [type]);
    if (!released) {
      throw new DomainError('conflict', 'NOT_DEFAULT_HOLDER', `This template is not the workspace's default ${type} template.`, {
        param: 'document_type',
        details: { document_type: type, holder_template_id: (await this.templates.holderOf(actor, type)) ?? null },
      });
    }
    await this.audit.record(actor, {
      action: 'document_template.default_cleared',
      resourceType: RESOURCE,
      resourceId: template.id,
      data: { document_type: type },
    });
    const view: TemplateView = {
      template: template.snapshot,
      defaultFor: await this.templates.defaultsHeldBy(actor, template.id),
    };
    await this.events.publish(actor, [{ type: 'document_template.default_changed', object: templateEvent(view) }]);
    return view;
  }
}

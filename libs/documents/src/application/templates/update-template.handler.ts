import { Transactional } from '@nestjs-cls/transactional';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { AuditLog, Clock, DomainError, EventLog, isUniqueViolation, previousAttributes, SharedErrors } from '@app/shared-kernel';
import { TemplateRepository } from '../../domain/template.repository';
import { TemplateRenderer } from '../render-ports';
import { loadOwn, RESOURCE, templateEvent } from './template-writes';
import { TemplateView } from './template.view';
import { UpdateTemplateCommand } from './update-template.command';
import { DocumentErrors } from '../../domain/document-errors';

function staleVersion(current: number | undefined): DomainError {
  return SharedErrors.CONFLICT.create('The template was changed since you read it; re-read it and apply your change again.', {
    param: 'expected_version',
    details: { current_version: current ?? null },
  });
}

function anchorAlreadyPublished(anchorKey: string, templateId: string | null): DomainError {
  return DocumentErrors.ANCHOR_ALREADY_PUBLISHED.create(
    `Another e-mail template is already published for ${anchorKey}; return it to draft or archive it first.`,
    { param: 'status', details: { anchor_key: anchorKey, template_id: templateId } },
  );
}

@CommandHandler(UpdateTemplateCommand)
export class UpdateTemplateHandler implements ICommandHandler<UpdateTemplateCommand> {
  constructor(
    private readonly templates: TemplateRepository,
    private readonly audit: AuditLog,
    private readonly clock: Clock,
    private readonly renders: TemplateRenderer,
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

import { Transactional } from '@nestjs-cls/transactional';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { AuditLog, Clock, EventLog } from '@app/shared-kernel';
import { DocumentTemplate, parseDocumentTypes, PrintedDocumentType } from '../../domain/document-template';
import { systemDefaultFor, systemEmailFor } from '../../domain/system-templates';
import { TemplateRepository } from '../../domain/template.repository';
import { TemplateRenderer } from '../render-ports';
import { CreateTemplateCommand } from './create-template.command';
import { RESOURCE, templateEvent } from './template-writes';
import { TemplateView } from './template.view';

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

@CommandHandler(CreateTemplateCommand)
export class CreateTemplateHandler implements ICommandHandler<CreateTemplateCommand> {
  constructor(
    private readonly templates: TemplateRepository,
    private readonly audit: AuditLog,
    private readonly clock: Clock,
    private readonly renders: TemplateRenderer,
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

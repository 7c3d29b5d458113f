import { Transactional } from '@nestjs-cls/transactional';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { AuditLog, Clock, EventLog } from '@app/shared-kernel';
import { TemplateRepository } from '../../domain/template.repository';
import { MarkDefaultTemplateCommand } from './mark-default-template.command';
import { loadAny, parsePrintedType, RESOURCE, templateEvent } from './template-writes';
import { TemplateView } from './template.view';

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

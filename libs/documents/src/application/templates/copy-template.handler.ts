import { Transactional } from '@nestjs-cls/transactional';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { AuditLog, Clock, EventLog } from '@app/shared-kernel';
import { TemplateRepository } from '../../domain/template.repository';
import { CopyTemplateCommand } from './copy-template.command';
import { loadAny, RESOURCE, templateEvent } from './template-writes';
import { TemplateView } from './template.view';

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

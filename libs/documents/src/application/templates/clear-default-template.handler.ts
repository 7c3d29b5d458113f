import { Transactional } from '@nestjs-cls/transactional';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { AuditLog, EventLog } from '@app/shared-kernel';
import { TemplateRepository } from '../../domain/template.repository';
import { ClearDefaultTemplateCommand } from './clear-default-template.command';
import { loadAny, parsePrintedType, RESOURCE, templateEvent } from './template-writes';
import { TemplateView } from './template.view';
import { DocumentErrors } from '../../domain/document-errors';

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
      throw DocumentErrors.NOT_DEFAULT_HOLDER.create(`This template is not the workspace's default ${type} template.`, {
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

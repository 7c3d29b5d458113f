import { Transactional } from '@nestjs-cls/transactional';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { AuditLog, Clock, EventLog } from '@app/shared-kernel';
import { PRINTED_DOCUMENT_TYPES, templateNotFound } from '../../domain/document-template';
import { TemplateRepository } from '../../domain/template.repository';
import { DeleteTemplateCommand } from './delete-template.command';
import { loadOwn, RESOURCE, templateEvent } from './template-writes';

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

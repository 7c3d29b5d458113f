import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { GetTemplateQuery } from './get-template.query';
import { readTemplate, TemplateReads } from './template-reads';
import { TemplateView } from './template.view';

@QueryHandler(GetTemplateQuery)
export class GetTemplateHandler implements IQueryHandler<GetTemplateQuery> {
  constructor(private readonly templates: TemplateReads) {}

  execute({ actor, templateId }: GetTemplateQuery): Promise<TemplateView> {
    return readTemplate(this.templates, actor, templateId);
  }
}

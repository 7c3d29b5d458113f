import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { DataSource } from 'typeorm';
import { GetTemplateQuery } from './get-template.query';
import { readTemplate } from './template-reads';
import { TemplateView } from './template.view';

@QueryHandler(GetTemplateQuery)
export class GetTemplateHandler implements IQueryHandler<GetTemplateQuery> {
  constructor(private readonly dataSource: DataSource) {}

  execute({ actor, templateId }: GetTemplateQuery): Promise<TemplateView> {
    return readTemplate(this.dataSource, actor, templateId);
  }
}

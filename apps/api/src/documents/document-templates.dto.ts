import {
  DOCUMENT_TYPES,
  EMAIL_KINDS,
  PREVIEW_FORMATS,
  PRINTED_DOCUMENT_TYPES,
  SYSTEM_TEMPLATE_IDS,
  SYSTEM_TEMPLATES,
  TEMPLATE_SCHEMA_V2,
  TEMPLATE_SORTS,
  TEMPLATE_STATUSES,
} from '@app/documents';
import type { PreviewFormat } from '@app/documents';
import { Transform } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsIn,
  IsInt,
  IsObject,
  IsOptional,
  IsString,
  MaxLength,
  Min,
  MinLength,
  ValidateIf,
} from 'class-validator';
import { ListQueryDto, PaginationDto } from '../http/list-query.dto';
import { ApiProperty, ApiPropertyOptional } from '../http/api-property';

const INVOICE_DOCUMENT = SYSTEM_TEMPLATES.find((template) => template.id === SYSTEM_TEMPLATE_IDS.invoice)!.document;

const EMAIL_DOCUMENT = SYSTEM_TEMPLATES.find((template) => template.anchorKey === 'invoice.finalized')!.document;

/** JSON Schema → the OpenAPI 3.1 dialect: no $id, no ajv discriminator, a oneOf carries no type of its own. */
function publishedSchema(node: unknown, propertyMap = false): unknown {
  if (Array.isArray(node)) return node.map((item) => publishedSchema(item));
  if (node === null || typeof node !== 'object') return node;
  const object = node as Record<string, unknown>;
  // The keys of a `properties` map are field names, not keywords: the header block's `title` field stays.
  if (propertyMap) return Object.fromEntries(Object.entries(object).map(([key, value]) => [key, publishedSchema(value)]));
  return Object.fromEntries(
    Object.entries(object)
      .filter(
        ([key]) =>
          !['$id', 'discriminator', 'title'].includes(key) && !('oneOf' in object && (key === 'type' || key === 'required')),
      )
      .map(([key, value]) => [key, publishedSchema(value, key === 'properties' || key === 'patternProperties')]),
  );
}

/**
 * The template document's JSON Schema (version 2) as a component of the OpenAPI document, each
 * top-level part with an example (the system invoice layout; `email` from the system e-mail).
 */
export function templateDocumentSchema(): Record<string, unknown> {
  const schema = publishedSchema(TEMPLATE_SCHEMA_V2) as { properties: Record<string, Record<string, unknown>> } & Record<
    string,
    unknown
  >;
  const examples: Record<string, unknown> = { ...INVOICE_DOCUMENT, email: EMAIL_DOCUMENT.email };
  for (const [name, property] of Object.entries(schema.properties)) property.example = examples[name];
  return {
    ...schema,
    description:
      'The template document (schema version 2): ordered `blocks` (header, parties, document_meta, line_items, totals, notes, ' +
      'payment_instructions, free_text) plus `theme` (bundled font family DejaVu Sans or DejaVu Serif, sizes, colours, spacing, ' +
      'page size and margins), `branding` and `footer`; e-mail templates add `email` {subject, preheader, body}, whose ' +
      '`{{ variables }}` must be offered by the template’s mail kind. An error points at the offending place, e.g. ' +
      '`template_json/blocks/3/type`.',
  };
}

export const TEMPLATE_DOCUMENT_SCHEMA = 'TemplateDocument';

const TEMPLATE_JSON = {
  allOf: [{ $ref: `#/components/schemas/${TEMPLATE_DOCUMENT_SCHEMA}` }],
  description: 'The template document; see the TemplateDocument schema.',
  example: INVOICE_DOCUMENT,
};

const trimmed = ({ value }: { value: unknown }) => (typeof value === 'string' ? value.trim() : value);
const lowerCase = ({ value }: { value: unknown }) => (typeof value === 'string' ? value.toLowerCase() : value);

export class CreateDocumentTemplateDto {
  @ApiProperty({ example: 'Invoice with logo', minLength: 1, maxLength: 200 })
  @Transform(trimmed)
  @IsString()
  @MinLength(1)
  @MaxLength(200)
  name!: string;

  @ApiPropertyOptional({ type: String, nullable: true, maxLength: 2000, example: 'Our invoice layout for EU customers.' })
  @IsOptional()
  @ValidateIf((_, value) => value !== null)
  @IsString()
  @MaxLength(2000)
  description?: string | null;

  @ApiPropertyOptional({
    type: 'array',
    items: { type: 'string', enum: [...DOCUMENT_TYPES] },
    example: ['invoice', 'credit_note'],
    description: 'Printed types (invoice, credit_note, quote), or ["email"] alone. Default ["invoice"].',
  })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(4)
  @IsString({ each: true })
  document_types?: string[];

  @ApiPropertyOptional({
    type: String,
    nullable: true,
    enum: EMAIL_KINDS.map((kind) => kind.anchorKey),
    example: 'invoice.finalized',
    description: 'E-mail templates only (required there): the mail kind the template is written for.',
  })
  @IsOptional()
  @ValidateIf((_, value) => value !== null)
  @IsString()
  anchor_key?: string | null;

  @ApiPropertyOptional({
    ...TEMPLATE_JSON,
    description: 'The template document. Omitted: a copy of the system default of the first document type (or of the mail kind).',
  })
  @IsOptional()
  @IsObject()
  template_json?: Record<string, unknown>;
}

export class UpdateDocumentTemplateDto {
  @ApiProperty({ type: 'integer', minimum: 1, example: 3, description: 'The version you read; a stale one is 409 CONFLICT.' })
  @IsInt()
  @Min(1)
  expected_version!: number;

  @ApiPropertyOptional({ example: 'Invoice with logo (2027)', minLength: 1, maxLength: 200 })
  @IsOptional()
  @Transform(trimmed)
  @IsString()
  @MinLength(1)
  @MaxLength(200)
  name?: string;

  @ApiPropertyOptional({ type: String, nullable: true, maxLength: 2000, example: 'Adds the new bank account.' })
  @IsOptional()
  @ValidateIf((_, value) => value !== null)
  @IsString()
  @MaxLength(2000)
  description?: string | null;

  @ApiPropertyOptional({
    type: 'array',
    items: { type: 'string', enum: [...DOCUMENT_TYPES] },
    example: ['invoice', 'quote'],
    description: 'Within the template’s kind: printed types for a printed template, ["email"] for an e-mail template.',
  })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(4)
  @IsString({ each: true })
  document_types?: string[];

  @ApiPropertyOptional({
    enum: [...TEMPLATE_STATUSES],
    example: 'archived',
    description:
      'Printed: active ↔ archived. E-mail: draft ↔ published, draft or published → archived, archived → draft ' +
      '(one published e-mail per mail kind). Anything else is 409 INVALID_STATUS_TRANSITION.',
  })
  @IsOptional()
  @IsIn([...TEMPLATE_STATUSES])
  status?: string;

  @ApiPropertyOptional(TEMPLATE_JSON)
  @IsOptional()
  @IsObject()
  template_json?: Record<string, unknown>;
}

export class CopyDocumentTemplateDto {
  @ApiPropertyOptional({ example: 'Invoice (EU)', minLength: 1, maxLength: 200, description: 'Default: "Copy of <name>".' })
  @IsOptional()
  @Transform(trimmed)
  @IsString()
  @MinLength(1)
  @MaxLength(200)
  name?: string;
}

export class PreviewTemplateQueryDto {
  @ApiPropertyOptional({
    enum: [...PREVIEW_FORMATS],
    description:
      'The render to answer: `pdf` (application/pdf), `html` (text/html) or `text` (text/plain). It wins over the ' +
      '`Accept` header, which decides when it is omitted (the PDF unless Accept prefers text/html or text/plain).',
  })
  @IsOptional()
  @IsIn([...PREVIEW_FORMATS])
  format?: PreviewFormat;
}

export class PreviewDocumentTemplateDto {
  @ApiPropertyOptional({
    enum: [...DOCUMENT_TYPES],
    example: 'invoice',
    description: 'Which sample document to render (case-insensitive). Default invoice (an e-mail template: email).',
  })
  @IsOptional()
  @Transform(lowerCase)
  @IsIn([...DOCUMENT_TYPES])
  document_type?: string;

  @ApiPropertyOptional({
    type: 'array',
    items: { type: 'string', enum: [...DOCUMENT_TYPES] },
    example: ['invoice', 'quote'],
    description: 'The document types of the unsaved draft; default the template’s.',
  })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(4)
  @IsString({ each: true })
  document_types?: string[];

  @ApiPropertyOptional({ ...TEMPLATE_JSON, description: 'An unsaved draft to render instead of the stored document.' })
  @IsOptional()
  @IsObject()
  template_json?: Record<string, unknown>;
}

export class ListDocumentTemplatesQueryDto extends ListQueryDto {
  @ApiPropertyOptional({ enum: [...TEMPLATE_SORTS], example: 'updated_at:desc', description: 'Default updated_at:desc.' })
  @IsOptional()
  @IsString()
  sort?: string;

  @ApiPropertyOptional({ enum: [...DOCUMENT_TYPES], example: 'invoice', description: 'Omit for every type.' })
  @IsOptional()
  @IsString()
  document_type?: string;

  @ApiPropertyOptional({
    enum: [...TEMPLATE_STATUSES],
    example: 'active',
    description: 'Printed: active, archived; e-mail: draft, published, archived. Omit for all, archived included.',
  })
  @IsOptional()
  @IsString()
  status?: string;

  @ApiPropertyOptional({
    enum: EMAIL_KINDS.map((kind) => kind.anchorKey),
    example: 'invoice.finalized',
    description: 'E-mail templates of one mail kind (implies document_type=email).',
  })
  @IsOptional()
  @IsString()
  anchor_key?: string;

  @ApiPropertyOptional({ enum: ['document_type'], example: 'document_type', description: 'Adds counts.document_type.' })
  @IsOptional()
  @IsString()
  counts?: string;
}

export class DocumentTemplateDto {
  @ApiProperty({ example: '0193a5c2-7f4e-7b1a-9c1d-2f0e4b5a6d21' }) id!: string;
  @ApiProperty({ example: 'document_template' }) object!: string;
  @ApiProperty({ example: 'Invoice with logo' }) name!: string;
  @ApiProperty({ type: String, nullable: true, example: 'Our invoice layout for EU customers.' }) description!: string | null;
  @ApiProperty({ type: 'array', items: { type: 'string', enum: [...DOCUMENT_TYPES] }, example: ['invoice', 'credit_note'] })
  document_types!: string[];
  @ApiProperty({ enum: [...TEMPLATE_STATUSES], example: 'active' }) status!: string;
  @ApiProperty({ example: false, description: 'A built-in system default: readable, copyable, a default target; read-only.' })
  is_system!: boolean;
  @ApiProperty({ type: 'integer', example: 3, description: 'Send it as expected_version to update.' }) version!: number;
  @ApiProperty({ type: 'integer', example: 2, description: 'The schema version template_json conforms to.' })
  schema_version!: number;
  @ApiProperty({ type: String, nullable: true, example: null, description: 'E-mail templates: the mail kind.' }) anchor_key!:
    string | null;
  @ApiProperty({
    type: String,
    nullable: true,
    example: null,
    description: 'The mail kind’s name in the request’s locale (Accept-Language).',
  })
  anchor_name!: string | null;
  @ApiProperty({
    type: 'array',
    items: { type: 'string', enum: [...PRINTED_DOCUMENT_TYPES] },
    example: ['invoice'],
    description: 'The document types whose workspace default this template is.',
  })
  default_for!: string[];
  @ApiProperty({
    type: String,
    nullable: true,
    example: SYSTEM_TEMPLATE_IDS.invoice,
    description: 'The template this one was copied from.',
  })
  copied_from_id!: string | null;
  @ApiProperty(TEMPLATE_JSON) template_json!: Record<string, unknown>;
  @ApiProperty({ example: '2026-11-22T10:15:30.000Z' }) created_at!: string;
  @ApiProperty({ example: '2026-11-22T12:30:00.000Z' }) updated_at!: string;
}

class DocumentTypeCountsDto {
  @ApiProperty({ type: 'integer', example: 12 }) all!: number;
  @ApiProperty({ type: 'integer', example: 4 }) invoice!: number;
  @ApiProperty({ type: 'integer', example: 2 }) credit_note!: number;
  @ApiProperty({ type: 'integer', example: 2 }) quote!: number;
  @ApiProperty({ type: 'integer', example: 6 }) email!: number;
}

class TemplateCountsDto {
  @ApiProperty({ type: DocumentTypeCountsDto }) document_type!: DocumentTypeCountsDto;
}

export class DocumentTemplateListDto {
  @ApiProperty({ type: [DocumentTemplateDto], description: 'The first page starts with the matching system defaults.' })
  data!: DocumentTemplateDto[];
  @ApiProperty({ type: PaginationDto }) pagination!: PaginationDto;
  @ApiPropertyOptional({ type: TemplateCountsDto, description: 'With counts=document_type.' }) counts?: TemplateCountsDto;
}

class EmailVariableDto {
  @ApiProperty({ example: 'invoice.number' }) name!: string;
  @ApiProperty({ example: 'Invoice number' }) description!: string;
  @ApiProperty({ example: 'INV-2026-0042' }) example!: string;
}

export class EmailKindDto {
  @ApiProperty({ example: 'email_kind' }) object!: string;
  @ApiProperty({ example: 'invoice.finalized' }) anchor_key!: string;
  @ApiProperty({ example: 'Invoice finalized' }) name!: string;
  @ApiProperty({ type: [EmailVariableDto] }) variables!: EmailVariableDto[];
}

export class EmailKindListDto {
  @ApiProperty({ type: [EmailKindDto] }) data!: EmailKindDto[];
}

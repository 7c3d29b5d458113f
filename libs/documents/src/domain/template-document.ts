import Ajv, { ErrorObject, ValidateFunction } from 'ajv';
import { DomainError, FieldError, SharedErrors } from '@app/shared-kernel';

/**
 * The template document (`template_json`): ordered blocks plus theme, branding and footer; an
 * e-mail template adds its subject and body. Its shape is a versioned JSON Schema; every stored
 * document carries the version it was written in, and older versions are upgraded on read by the
 * upcasters of `template-upcasters.ts`, one explicit step per version.
 */
export const CURRENT_SCHEMA_VERSION = 2;

/** Bundled open-licensed fonts (DejaVu: Latin, Greek and Cyrillic); see libs/documents/assets/fonts. */
export const FONT_FAMILIES = ['DejaVu Sans', 'DejaVu Serif'] as const;
export type FontFamily = (typeof FONT_FAMILIES)[number];

export const PAGE_SIZES = ['A4', 'Letter'] as const;
export type PageSize = (typeof PAGE_SIZES)[number];

export const LINE_ITEM_COLUMNS = ['description', 'quantity', 'unit_price', 'tax_rate', 'amount'] as const;
export type LineItemColumn = (typeof LINE_ITEM_COLUMNS)[number];

export const META_FIELDS = [
  'number',
  'issue_date',
  'due_date',
  'valid_until',
  'reference',
  'purchase_order',
  'service_period',
] as const;
export type MetaField = (typeof META_FIELDS)[number];

export type Align = 'left' | 'center' | 'right';

export interface Theme {
  font_family: FontFamily;
  font_size: number;
  heading_size: number;
  colors: { primary: string; text: string; muted: string; table_header_background: string; border: string };
  spacing: number;
  page: { size: PageSize; margins: { top: number; right: number; bottom: number; left: number } };
}

export interface Branding {
  company_name: string | null;
  /** A PNG or JPEG as a data: URI, at most 256 KB. */
  logo: string | null;
  accent_bar: boolean;
}

export type Block =
  | { type: 'header'; title: string | null; show_logo: boolean; align: Align }
  | { type: 'parties'; seller_label: string; buyer_label: string; show_tax_ids: boolean }
  | { type: 'document_meta'; fields: MetaField[] }
  | {
      type: 'line_items';
      columns: Array<{ key: LineItemColumn; label: string | null; width: number | null }>;
      striped: boolean;
    }
  | { type: 'totals'; show_tax_summary: boolean }
  | { type: 'notes'; title: string | null; text: string | null }
  | { type: 'payment_instructions'; title: string | null; text: string | null }
  | { type: 'free_text'; text: string; align: Align };

export type BlockType = Block['type'];

export interface Footer {
  legal_text: string | null;
  show_page_numbers: boolean;
}

export interface EmailContent {
  subject: string;
  preheader: string | null;
  body: string;
}

export interface TemplateDocument {
  theme: Theme;
  branding: Branding;
  blocks: Block[];
  footer: Footer;
  email?: EmailContent;
}

const color = { type: 'string', pattern: '^#[0-9a-fA-F]{6}$' };
const nullableText = (maxLength: number) => ({ type: ['string', 'null'], maxLength });
/**
 * Text that ends up on a header-like line (an e-mail's Subject, its preview line, the sender's
 * name): a line break of any kind there would start another header (`Subject: …\rBcc: …`).
 */
const SINGLE_LINE = '^[^\\r\\n\\u000b\\u000c\\u0085\\u2028\\u2029]*$';
const singleLine = <T extends object>(schema: T) => ({ ...schema, pattern: SINGLE_LINE });
const align = { enum: ['left', 'center', 'right'] };
const margin = { type: 'integer', minimum: 18, maximum: 144 };

function block(type: BlockType, properties: Record<string, unknown>, required: string[]) {
  return {
    type: 'object',
    additionalProperties: false,
    required: ['type', ...required],
    properties: { type: { const: type }, ...properties },
  };
}

/** Version 2 of the template document, the current one. */
export const TEMPLATE_SCHEMA_V2 = {
  $id: 'https://schemas.billing.example/document-template/v2.json',
  title: 'Document template, schema version 2',
  type: 'object',
  additionalProperties: false,
  required: ['theme', 'branding', 'blocks', 'footer'],
  properties: {
    theme: {
      type: 'object',
      additionalProperties: false,
      required: ['font_family', 'font_size', 'heading_size', 'colors', 'spacing', 'page'],
      properties: {
        font_family: { enum: [...FONT_FAMILIES] },
        font_size: { type: 'number', minimum: 6, maximum: 16 },
        heading_size: { type: 'number', minimum: 8, maximum: 36 },
        colors: {
          type: 'object',
          additionalProperties: false,
          required: ['primary', 'text', 'muted', 'table_header_background', 'border'],
          properties: { primary: color, text: color, muted: color, table_header_background: color, border: color },
        },
        spacing: { type: 'number', minimum: 0, maximum: 48 },
        page: {
          type: 'object',
          additionalProperties: false,
          required: ['size', 'margins'],
          properties: {
            size: { enum: [...PAGE_SIZES] },
            margins: {
              type: 'object',
              additionalProperties: false,
              required: ['top', 'right', 'bottom', 'left'],
              properties: { top: margin, right: margin, bottom: margin, left: margin },
            },
          },
        },
      },
    },
    branding: {
      type: 'object',
      additionalProperties: false,
      required: ['company_name', 'logo', 'accent_bar'],
      properties: {
        company_name: singleLine(nullableText(200)),
        logo: {
          type: ['string', 'null'],
          maxLength: 350_000,
          pattern: '^data:image/(png|jpeg);base64,[A-Za-z0-9+/]+={0,2}$',
        },
        accent_bar: { type: 'boolean' },
      },
    },
    blocks: {
      type: 'array',
      minItems: 0,
      maxItems: 40,
      items: {
        type: 'object',
        required: ['type'],
        properties: { type: { type: 'string' } },
        discriminator: { propertyName: 'type' },
        oneOf: [
          block('header', { title: nullableText(120), show_logo: { type: 'boolean' }, align }, ['title', 'show_logo', 'align']),
          block(
            'parties',
            {
              seller_label: { type: 'string', minLength: 1, maxLength: 60 },
              buyer_label: { type: 'string', minLength: 1, maxLength: 60 },
              show_tax_ids: { type: 'boolean' },
            },
            ['seller_label', 'buyer_label', 'show_tax_ids'],
          ),
          block(
            'document_meta',
            {
              fields: {
                type: 'array',
                minItems: 1,
                maxItems: META_FIELDS.length,
                uniqueItems: true,
                items: { enum: [...META_FIELDS] },
              },
            },
            ['fields'],
          ),
          block(
            'line_items',
            {
              columns: {
                type: 'array',
                minItems: 1,
                maxItems: LINE_ITEM_COLUMNS.length,
                items: {
                  type: 'object',
                  additionalProperties: false,
                  required: ['key', 'label', 'width'],
                  properties: {
                    key: { enum: [...LINE_ITEM_COLUMNS] },
                    label: nullableText(40),
                    width: { type: ['number', 'null'], minimum: 5, maximum: 100 },
                  },
                },
              },
              striped: { type: 'boolean' },
            },
            ['columns', 'striped'],
          ),
          block('totals', { show_tax_summary: { type: 'boolean' } }, ['show_tax_summary']),
          block('notes', { title: nullableText(80), text: nullableText(2000) }, ['title', 'text']),
          block('payment_instructions', { title: nullableText(80), text: nullableText(2000) }, ['title', 'text']),
          block('free_text', { text: { type: 'string', minLength: 1, maxLength: 4000 }, align }, ['text', 'align']),
        ],
      },
    },
    footer: {
      type: 'object',
      additionalProperties: false,
      required: ['legal_text', 'show_page_numbers'],
      properties: { legal_text: nullableText(1000), show_page_numbers: { type: 'boolean' } },
    },
    email: {
      type: 'object',
      additionalProperties: false,
      required: ['subject', 'preheader', 'body'],
      properties: {
        subject: singleLine({ type: 'string', minLength: 1, maxLength: 250 }),
        preheader: singleLine(nullableText(200)),
        body: { type: 'string', minLength: 1, maxLength: 20_000 },
      },
    },
  },
} as const;

let compiled: ValidateFunction | undefined;

function validator(): ValidateFunction {
  compiled ??= new Ajv({ allErrors: true, discriminator: true, strict: true, allowUnionTypes: true }).compile(TEMPLATE_SCHEMA_V2);
  return compiled;
}

const MAX_REPORTED_ERRORS = 10;

/**
 * Validates a document against the current schema. Each error points at the offending place,
 * JSON-Pointer style under the request field: `template_json/blocks/3/type`.
 */
export function validateTemplateDocument(value: unknown, field = 'template_json'): TemplateDocument {
  const validate = validator();
  if (validate(value)) return value as unknown as TemplateDocument;
  const errors = dedupe((validate.errors ?? []).map((error) => fieldError(error, field))).slice(0, MAX_REPORTED_ERRORS);
  throw invalidDocument(errors);
}

export function invalidDocument(errors: FieldError[]): DomainError {
  return SharedErrors.VALIDATION_ERROR.create(`${errors[0].param}: ${errors[0].message}`, {
    param: errors[0].param,
    errors,
  });
}

function fieldError(error: ErrorObject, field: string): FieldError {
  const params = error.params as Record<string, unknown>;
  let path = `${field}${error.instancePath}`;
  let code = 'INVALID_VALUE';
  let message = error.message ?? 'is invalid';
  switch (error.keyword) {
    case 'required':
      path += `/${String(params.missingProperty)}`;
      code = 'REQUIRED';
      message = 'is required';
      break;
    case 'additionalProperties':
      path += `/${String(params.additionalProperty)}`;
      code = 'UNKNOWN_PARAMETER';
      message = 'is not a known property';
      break;
    case 'discriminator':
      path += `/${String(params.tag)}`;
      message =
        params.error === 'mapping'
          ? `must be one of ${blockTypes().join(', ')}`
          : `must be a string naming the block type (${blockTypes().join(', ')})`;
      break;
    case 'type':
      code = 'INVALID_TYPE';
      break;
    case 'pattern':
      if (params.pattern === SINGLE_LINE) {
        code = 'INVALID_CHARACTER';
        message = 'must be one line: no line break of any kind (CR, LF, VT, FF, NEL, U+2028, U+2029)';
      }
      break;
    case 'minimum':
    case 'maximum':
    case 'minLength':
    case 'maxLength':
    case 'minItems':
    case 'maxItems':
      code = 'OUT_OF_RANGE';
      break;
  }
  return { param: path, code, message };
}

function dedupe(errors: FieldError[]): FieldError[] {
  const seen = new Set<string>();
  return errors.filter((error) => {
    const key = `${error.param}|${error.code}|${error.message}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

export function blockTypes(): BlockType[] {
  return ['header', 'parties', 'document_meta', 'line_items', 'totals', 'notes', 'payment_instructions', 'free_text'];
}

/** Columns in the order the template lists them, with their default labels and widths. */
export const DEFAULT_COLUMN_LABELS: Record<LineItemColumn, string> = {
  description: 'Description',
  quantity: 'Qty',
  unit_price: 'Unit price',
  tax_rate: 'Tax',
  amount: 'Amount',
};

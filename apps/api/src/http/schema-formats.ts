import { OpenAPIObject } from '@nestjs/swagger';

type Schema = Record<string, unknown>;

/** Contract §1: money and decimals are strings of this form. */
const DECIMAL = /^-?\d+(\.\d+)?$/;
export const DECIMAL_PATTERN = DECIMAL.source;
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** Every timestamp field is named `…_at`; some show no example, or only `null`. */
const TIMESTAMP_NAME = /_at$/;

/**
 * Publishes what each field's example already shows, so generated clients type fields alike:
 * a timestamp as `format: date-time`, a UUID as `format: uuid` (prefixed ids such as `pm_…` and
 * external references keep plain strings), a decimal string with the contract's pattern, and a
 * number whose example is whole as an integer; and a field that admits no value (`not: {}`)
 * without a type. A field that states its own format or pattern keeps it. One pass over the finished document, so a new DTO is described without edits.
 */
export function describeFormats(document: OpenAPIObject): OpenAPIObject {
  for (const schema of Object.values(document.components?.schemas ?? {})) visit(schema, undefined);
  for (const item of Object.values(document.paths)) {
    for (const operation of Object.values(item as Record<string, Schema>)) {
      if (operation === null || typeof operation !== 'object') continue;
      for (const parameter of (operation.parameters as Schema[] | undefined) ?? [])
        visit(parameter.schema, String(parameter.name));
      for (const part of [operation.requestBody, ...Object.values((operation.responses as Schema | undefined) ?? {})]) {
        const { content } = (part ?? {}) as { content?: Record<string, Schema> };
        for (const media of Object.values(content ?? {})) visit(media.schema, undefined);
      }
    }
  }
  return document;
}

function visit(node: unknown, name: string | undefined, arrayExample?: unknown): void {
  if (Array.isArray(node)) {
    for (const item of node) visit(item, name);
    return;
  }
  if (node === null || typeof node !== 'object') return;
  const schema = node as Schema;
  if (!('$ref' in schema)) describeField(schema, name, arrayExample);
  for (const [key, value] of Object.entries(schema)) {
    // Examples are data, not schemas.
    if (key === 'example' || key === 'examples' || value === null || typeof value !== 'object') continue;
    if (key === 'properties' || key === 'patternProperties') {
      for (const [property, child] of Object.entries(value as Record<string, Schema>)) visit(child, property);
    } else if (key === 'items') {
      // An array's items are the same field; an example of the array shows them.
      visit(value, name, Array.isArray(schema.example) ? schema.example[0] : undefined);
    } else {
      // The branches of a nullable field (anyOf): still the same field.
      visit(value, ['anyOf', 'oneOf', 'allOf'].includes(key) || /^\d+$/.test(key) ? name : undefined);
    }
  }
}

function describeField(schema: Schema, name: string | undefined, arrayExample: unknown): void {
  // A refused field (api-property.ts `refused`) admits no value: the type Swagger reflects would invite one.
  if (isEmptySchema(schema.not)) {
    delete schema.type;
    return;
  }
  const types = [schema.type ?? []].flat();
  const example = schema.example ?? arrayExample;
  if (types.includes('number') && typeof example === 'number' && Number.isInteger(example)) {
    schema.type = Array.isArray(schema.type) ? schema.type.map((type) => (type === 'number' ? 'integer' : type)) : 'integer';
    return;
  }
  if (!types.includes('string') || 'format' in schema || 'pattern' in schema || 'enum' in schema) return;
  if (typeof example === 'string') {
    if (DATE_TIME.test(example)) schema.format = 'date-time';
    else if (UUID.test(example)) schema.format = 'uuid';
    else if (DECIMAL.test(example)) schema.pattern = DECIMAL_PATTERN;
  } else if ((example === undefined || example === null) && name !== undefined && TIMESTAMP_NAME.test(name)) {
    schema.format = 'date-time';
  }
}

function isEmptySchema(value: unknown): boolean {
  return value !== null && typeof value === 'object' && Object.keys(value).length === 0;
}

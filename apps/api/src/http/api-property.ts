import { ApiProperty as SwaggerApiProperty, ApiPropertyOptions } from '@nestjs/swagger';
import { getMetadataStorage } from 'class-validator';
import { TIMESTAMP_RANGE, TIMESTAMP_RANGE_TEXT } from './timestamp';

/**
 * `@ApiProperty` for every DTO of the API. Swagger reads a property's type from its reflected
 * `design:type`, and TypeScript reflects any union (`string | null`), `unknown` or record as
 * `Object`: a nullable decimal string was published as `["object", "null"]`. Such a property must
 * say what it is (`type`, `enum`, a schema combinator or `$ref`); this refuses it at class load
 * otherwise, so the document is right by construction rather than checked field by field. A bare
 * `type: 'object'` is refused too: a client could not tell its shape.
 */
export function ApiProperty(options: ApiPropertyOptions = {}): PropertyDecorator {
  return (target, propertyKey) => {
    const bounds = validatedBounds(target, propertyKey);
    const description = [options.description, bounds.description].filter((text) => text !== undefined).join(' ') || undefined;
    const decorate = SwaggerApiProperty({ ...bounds, ...options, description } as ApiPropertyOptions);
    const reflected: unknown = Reflect.getMetadata('design:type', target, propertyKey);
    if (reflected === Object && !declaresType(options)) {
      throw new TypeError(
        `${target.constructor.name}.${String(propertyKey)}: its TypeScript type reflects as Object (a union, unknown or a record); ` +
          'declare the OpenAPI type explicitly (type: String, type: "object" with properties or additionalProperties, …).',
      );
    }
    if (options.type === 'object' && !('properties' in options) && !('additionalProperties' in options)) {
      throw new TypeError(
        `${target.constructor.name}.${String(propertyKey)}: an object needs its properties (a DTO class) or additionalProperties (a map).`,
      );
    }
    decorate(target, propertyKey);
  };
}

export function ApiPropertyOptional(options: ApiPropertyOptions = {}): PropertyDecorator {
  return ApiProperty({ ...options, required: false } as ApiPropertyOptions);
}

/**
 * The bounds the validation pipe enforces on this property (class-validator decorators written
 * below `@ApiProperty`, so already registered), published in the document: a client, Spectral's
 * OWASP rules and openapi-typescript see the limit the server applies without it being written
 * twice. An explicit option wins, but a description is joined with the bound's (a timestamp's
 * range). Per-item (`each`) constraints are left to the item schema.
 */
function validatedBounds(target: object, propertyKey: string | symbol): Record<string, unknown> {
  const bounds: Record<string, unknown> = {};
  const constraints = getMetadataStorage()
    .getTargetValidationMetadatas(target.constructor, '', true, false)
    .filter((metadata) => metadata.propertyName === propertyKey && !metadata.each);
  for (const { name, constraints: values = [] } of constraints) {
    const [first, second] = values as unknown[];
    if (name === 'maxLength') bounds.maxLength = first;
    else if (name === 'minLength') bounds.minLength = first;
    else if (name === 'isLength') Object.assign(bounds, { minLength: first, ...(second !== undefined && { maxLength: second }) });
    else if (name === 'min') bounds.minimum = first;
    else if (name === 'max') bounds.maximum = first;
    else if (name === 'arrayMaxSize') bounds.maxItems = first;
    else if (name === 'arrayMinSize') bounds.minItems = first;
    else if (name === 'isUuid') Object.assign(bounds, { format: 'uuid', maxLength: 36 });
    else if (name === 'matches' && first instanceof RegExp && !first.flags) bounds.pattern = first.source;
    else if (name === TIMESTAMP_RANGE) bounds.description = TIMESTAMP_RANGE_TEXT;
  }
  return bounds;
}

function declaresType(options: ApiPropertyOptions): boolean {
  const declared = options as Record<string, unknown>;
  return ['type', 'enum', 'oneOf', 'anyOf', 'allOf', '$ref', 'not'].some((key) => declared[key] !== undefined);
}

/**
 * A field the route always refuses (400 FIELD_NOT_ALLOWED) but names, so the refusal can say where
 * the setting belongs: `not: {}` admits no value (schema-formats.ts drops the type Swagger reflects
 * for it), so a generated client offers no type for it and Swagger UI no example to send.
 */
export function refused(where: string): ApiPropertyOptions {
  return { not: {}, description: `Always refused (400 FIELD_NOT_ALLOWED): ${where}` } as ApiPropertyOptions;
}

import { ApiProperty as SwaggerApiProperty, ApiPropertyOptions } from '@nestjs/swagger';

/**
 * `@ApiProperty` for every DTO of the API. Swagger reads a property's type from its reflected
 * `design:type`, and TypeScript reflects any union (`string | null`), `unknown` or record as
 * `Object`: a nullable decimal string was published as `["object", "null"]`. Such a property must
 * say what it is (`type`, `enum`, a schema combinator or `$ref`); this refuses it at class load
 * otherwise, so the document is right by construction rather than checked field by field. A bare
 * `type: 'object'` is refused too: a client could not tell its shape.
 */
export function ApiProperty(options: ApiPropertyOptions = {}): PropertyDecorator {
  const decorate = SwaggerApiProperty(options);
  return (target, propertyKey) => {
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

function declaresType(options: ApiPropertyOptions): boolean {
  const declared = options as Record<string, unknown>;
  return ['type', 'enum', 'oneOf', 'anyOf', 'allOf', '$ref'].some((key) => declared[key] !== undefined);
}

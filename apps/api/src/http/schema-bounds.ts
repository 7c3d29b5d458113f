import { MAX_PAGE_LIMIT } from '@app/shared-kernel';
import { OpenAPIObject } from '@nestjs/swagger';

type Schema = Record<string, unknown>;

/** Where a schema sits decides which of the server's own limits bounds it. */
interface Limits {
  maxLength: number;
  maxItems: number;
}

/** A JSON body is at most BODY_LIMIT_BYTES (json-body.ts); every element of an array takes at least 2 bytes ("0,"). */
const BODY = (bodyLimitBytes: number): Limits => ({ maxLength: bodyLimitBytes, maxItems: Math.floor(bodyLimitBytes / 2) });
/** Fastify refuses a path parameter longer than its maxParamLength (default 100) with a 404. */
const PATH: Limits = { maxLength: 100, maxItems: 0 };
/** Node refuses a request whose request line and headers exceed --max-http-header-size (16 KiB) with a 431. */
const URL_OR_HEADER: Limits = { maxLength: 16 * 1024, maxItems: 8 * 1024 };
/** Integers travel as JSON numbers the server reads and writes as JavaScript numbers. */
const SAFE_INTEGER = Number.MAX_SAFE_INTEGER;

/**
 * Gives every string, integer and array of the document the bound the server already enforces
 * where the route's own validation states none (a route's @MaxLength, @Max or @ArrayMaxSize is
 * published by ApiProperty and always wins): the body limit for bodies, Fastify's parameter
 * length for path parameters, Node's header-size limit for query and header parameters, the
 * JavaScript safe-integer range for integers, and the maximum page size for the `data` of a
 * list. One pass over the finished document, so a new DTO or route is bounded without edits and
 * Spectral's OWASP rules (api4:2023 string/integer/array limits) hold by construction.
 */
export function boundSchemas(document: OpenAPIObject, bodyLimitBytes: number): OpenAPIObject {
  for (const [name, schema] of Object.entries(document.components?.schemas ?? {})) {
    bound(schema as Schema, BODY(bodyLimitBytes), /ListDto$/.test(name));
  }
  for (const item of Object.values(document.paths)) {
    for (const operation of Object.values(item as Record<string, Schema>)) {
      if (operation === null || typeof operation !== 'object') continue;
      for (const parameter of (operation.parameters as Schema[] | undefined) ?? []) {
        bound(parameter.schema as Schema, parameter.in === 'path' ? PATH : URL_OR_HEADER, false);
      }
      for (const part of [operation.requestBody, ...Object.values((operation.responses as Schema | undefined) ?? {})]) {
        const { content, headers } = (part ?? {}) as { content?: Record<string, Schema>; headers?: Record<string, Schema> };
        for (const media of Object.values(content ?? {})) bound(media.schema as Schema, BODY(bodyLimitBytes), false);
        for (const header of Object.values(headers ?? {})) bound(header.schema as Schema, URL_OR_HEADER, false);
      }
    }
  }
  return document;
}

function bound(node: unknown, limits: Limits, isList: boolean): void {
  if (Array.isArray(node)) {
    for (const item of node) bound(item, limits, false);
    return;
  }
  if (node === null || typeof node !== 'object') return;
  const schema = node as Schema;
  if (!('$ref' in schema)) {
    const types = [schema.type ?? []].flat();
    const fixed = 'enum' in schema || 'const' in schema;
    if (types.includes('string') && !fixed && schema.maxLength === undefined) schema.maxLength = limits.maxLength;
    if (types.includes('integer')) {
      schema.format ??= 'int64';
      if (schema.minimum === undefined && schema.exclusiveMinimum === undefined) schema.minimum = -SAFE_INTEGER;
      if (schema.maximum === undefined && schema.exclusiveMaximum === undefined) schema.maximum = SAFE_INTEGER;
    }
    if (types.includes('array') && schema.maxItems === undefined) schema.maxItems = limits.maxItems;
  }
  for (const [key, value] of Object.entries(schema)) {
    // Examples are data, not schemas.
    if (key === 'example' || key === 'examples' || value === null || typeof value !== 'object') continue;
    if (key === 'properties' || key === 'patternProperties') {
      // A map of field names (a field may be called `example` or `type`) to schemas; a list's `data` is one page.
      const properties = value as Record<string, Schema>;
      if (isList && properties.data && !('$ref' in properties.data)) properties.data.maxItems ??= MAX_PAGE_LIMIT;
      for (const property of Object.values(properties)) bound(property, limits, false);
    } else {
      bound(value, limits, false);
    }
  }
}

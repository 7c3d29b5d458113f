import { OpenAPIObject } from '@nestjs/swagger';

type Schema = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/**
 * Gives every JSON request body without an example of its own (@ApiBody `example`/`examples`) a
 * whole-body example: its required fields, each with its own example. Left to itself, Swagger UI
 * would fill in every optional field's example too, and optional fields combine badly (a
 * stale expected_version, a reference that replays, a refused field); the smallest body that the
 * route accepts is what an explorer should start from. One pass, so a new route gets one.
 */
export function exampleBodies(document: OpenAPIObject): OpenAPIObject {
  for (const item of Object.values(document.paths)) {
    for (const operation of Object.values(item as Record<string, Schema>)) {
      const media: Schema | undefined = operation?.requestBody?.content?.['application/json'];
      if (!media || media.example !== undefined || media.examples !== undefined) continue;
      const example = exampleOf(document, media.schema);
      if (example !== undefined) media.example = example;
    }
  }
  return document;
}

/** The schema's own example, or one composed from its required parts; undefined when a required part shows none. */
function exampleOf(document: OpenAPIObject, node: Schema | undefined): unknown {
  const schema = resolve(document, node);
  if (!schema) return undefined;
  if (schema.example !== undefined) return schema.example;
  if (schema.properties) {
    const body: Record<string, unknown> = {};
    for (const name of (schema.required as string[] | undefined) ?? []) {
      const value = exampleOf(document, schema.properties[name]);
      if (value === undefined) return undefined;
      body[name] = value;
    }
    return body;
  }
  if (schema.items) {
    const item = exampleOf(document, schema.items);
    return item === undefined ? undefined : [item];
  }
  return undefined;
}

function resolve(document: OpenAPIObject, schema: Schema | undefined): Schema | undefined {
  const ref: string | undefined = schema?.$ref ?? (schema?.allOf?.length === 1 ? schema.allOf[0].$ref : undefined);
  return ref ? resolve(document, document.components?.schemas?.[ref.split('/').pop()!] as Schema) : schema;
}

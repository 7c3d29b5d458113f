const COMPONENT = /^#\/components\/schemas\/(.+)$/;

/** The component a `#/components/schemas/…` reference names, if the document has it. */
export function componentOf(document: any, ref: string): any {
  const name = COMPONENT.exec(ref)?.[1];
  return name === undefined ? undefined : document.components.schemas[name];
}

/** The body schema of an event type's webhook (OpenAPI 3.1 `webhooks`). */
export function webhookPayloadOf(document: any, type: string): any {
  return document.webhooks[type].post.requestBody.content['application/json'].schema;
}

/**
 * How an event's `data.object` departs from the schema its webhook declares for it: fields the
 * schema does not declare, and required ones it lacks (both empty when it fits).
 */
export function objectMisfit(
  document: any,
  event: { type: string; data: { object: object } },
): { undeclared: string[]; missing: string[] } {
  const schema = componentOf(document, webhookPayloadOf(document, event.type).allOf[1].properties.data.properties.object.$ref);
  const declared = Object.keys(schema.properties);
  return {
    undeclared: Object.keys(event.data.object).filter((key) => !declared.includes(key)),
    missing: (schema.required ?? []).filter((key: string) => !(key in event.data.object)),
  };
}

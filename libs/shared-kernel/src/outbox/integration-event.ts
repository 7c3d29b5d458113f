import 'reflect-metadata';

const EVENT_TYPE = Symbol('integration-event-type');

export type EventClass<E extends object = object> = new (...args: never[]) => E;

/**
 * Marks a class as an event that crosses the outbox: `type` is its stable name in the
 * outbox table (`<context>.<fact>`), so renaming the class never orphans stored rows.
 */
export function IntegrationEvent(type: string): ClassDecorator {
  return (target) => Reflect.defineMetadata(EVENT_TYPE, type, target);
}

export function integrationEventType(eventClass: object): string | undefined {
  return Reflect.getMetadata(EVENT_TYPE, eventClass) as string | undefined;
}

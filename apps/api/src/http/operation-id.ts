import { DECORATORS } from '@nestjs/swagger';

/**
 * The operation's stable name in the OpenAPI document, the method name generated clients get
 * (`createCustomer`, `listPlans`): verb-noun camelCase, unique across the API. Merged into the
 * route's @ApiOperation metadata whichever decorator runs first, so its summary stays.
 */
export function OperationId(operationId: string): MethodDecorator {
  return (_target, _key, descriptor) => {
    const declared: object | undefined = Reflect.getMetadata(DECORATORS.API_OPERATION, descriptor.value as object);
    Reflect.defineMetadata(DECORATORS.API_OPERATION, { ...declared, operationId }, descriptor.value as object);
    return descriptor;
  };
}

/** The operationId Nest's route metadata gives a handler: its own, or @nestjs/swagger's default `<Controller>_<method>`. */
export function operationIdOf(controller: { name: string }, name: string, handler: object): string {
  const declared: { operationId?: string } | undefined = Reflect.getMetadata(DECORATORS.API_OPERATION, handler);
  return declared?.operationId ?? `${controller.name}_${name}`;
}

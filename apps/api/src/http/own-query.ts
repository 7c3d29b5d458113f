import { ArgumentMetadata } from '@nestjs/common';

const PARSES_OWN_QUERY = 'billing:parses-own-query';

/**
 * Marks a query DTO whose route reads its query string with its own grammar: the plan list takes
 * `name.contains=…` or `custom_fields.region=eu`, names no DTO can declare, and answers an unknown
 * one with its own code (INVALID_FILTER, not the general UNKNOWN_PARAMETER). The DTO still
 * documents every parameter for the OpenAPI document; the validation pipe then hands the route
 * the raw query object (one string per parameter, an array for a repeated one) untouched, and
 * the route must refuse whatever it does not know itself.
 */
export function ParsesOwnQuery(): ClassDecorator {
  return (target) => Reflect.defineMetadata(PARSES_OWN_QUERY, true, target);
}

/** Whether the pipe should leave this argument to its route: a query DTO marked with ParsesOwnQuery. */
export function parsesOwnQuery(metadata: ArgumentMetadata): boolean {
  return (
    metadata.type === 'query' &&
    typeof metadata.metatype === 'function' &&
    Reflect.getMetadata(PARSES_OWN_QUERY, metadata.metatype) === true
  );
}

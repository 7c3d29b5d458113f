/**
 * The fetch client @hey-api/openapi-ts generates names `BodyInit`, a type of TypeScript's "dom"
 * lib; Node's own fetch types declare the same type (undici-types) without the global name.
 */
type BodyInit = import('undici-types').BodyInit;

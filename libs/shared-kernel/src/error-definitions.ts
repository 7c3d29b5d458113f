import { DomainError, DomainErrorKind, DomainErrorOptions } from './domain-error';

/**
 * How an error is declared once (issue 22, item 4): each context lists its codes in its
 * `<context>-errors.ts` with `defineErrors`, the code that refuses creates the DomainError from
 * the definition (`CatalogErrors.PLAN_BUSY.create(message, options)`), and the HTTP edge's error
 * catalog (apps/api/src/http/error-catalog.ts) is built from the same definitions: a definition
 * with an `example` is a documented code, whose example is what the OpenAPI document shows.
 */
export interface ErrorSpec {
  kind: DomainErrorKind;
  /** The message as the OpenAPI example words it (the thrown message is the throw site's own). */
  example?: string;
  /** The example's `param`. */
  param?: string;
  /** The example's `details`. */
  details?: Record<string, unknown>;
}

export interface ErrorDefinition<Code extends string = string, Kind extends DomainErrorKind = DomainErrorKind> {
  readonly code: Code;
  readonly kind: Kind;
  readonly example?: string;
  readonly param?: string;
  readonly details?: Record<string, unknown>;
  /** The DomainError of this code and kind. */
  create(message: string, options?: DomainErrorOptions): DomainError;
}

export type ErrorDefinitions<Specs extends Record<string, ErrorSpec>> = {
  readonly [Code in keyof Specs & string]: ErrorDefinition<Code, Specs[Code]['kind']> & Readonly<Omit<Specs[Code], 'kind'>>;
};

/** The codes of `Definitions` that carry an example: those the API documents. */
export type DocumentedCode<Definitions> = {
  [Code in keyof Definitions]: Definitions[Code] extends { readonly example: string } ? Code : never;
}[keyof Definitions] &
  string;

export function defineErrors<const Specs extends Record<string, ErrorSpec>>(specs: Specs): ErrorDefinitions<Specs> {
  const definitions: Record<string, ErrorDefinition> = {};
  for (const [code, spec] of Object.entries(specs)) {
    if (!/^[A-Z][A-Z0-9_]*$/.test(code)) throw new Error(`Error code ${code} is not UPPER_SNAKE`);
    const { kind } = spec;
    definitions[code] = Object.freeze({
      ...spec,
      code,
      kind,
      // The one place a DomainError is built from a code (eslint: no `new DomainError` elsewhere).
      // eslint-disable-next-line no-restricted-syntax
      create: (message: string, options?: DomainErrorOptions) => new DomainError(kind, code, message, options),
    });
  }
  return Object.freeze(definitions) as ErrorDefinitions<Specs>;
}

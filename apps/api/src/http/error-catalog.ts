import { SetMetadata } from '@nestjs/common';
import { WalletErrors } from '@app/billing-wallet';
import { CatalogErrors } from '@app/catalog';
import { DocumentErrors } from '@app/documents';
import { IdentityErrors } from '@app/identity';
import { DocumentedCode, ErrorDefinition, SharedErrors } from '@app/shared-kernel';
import { WebhookErrors } from '@app/webhooks';
import { ErrorBody, httpOfKind } from './error-response';
import { HttpErrors } from './http-errors';

/**
 * Every error definition, each declared once where it is thrown (shared-kernel-errors.ts, each
 * context's <context>-errors.ts, http-errors.ts): a code is declared in one of them only.
 */
const DEFINITION_SETS = [SharedErrors, HttpErrors, IdentityErrors, CatalogErrors, WalletErrors, DocumentErrors, WebhookErrors];

type Definitions = typeof SharedErrors &
  typeof HttpErrors &
  typeof IdentityErrors &
  typeof CatalogErrors &
  typeof WalletErrors &
  typeof DocumentErrors &
  typeof WebhookErrors;

/**
 * The error codes the API documents: the definitions with an example, each with the kind it is
 * raised with (hence its status and type, through the one mapping in error-response.ts) and a
 * message as the API words it: the OpenAPI document shows each as an example of its status.
 */
export type ErrorCode = DocumentedCode<Definitions>;

/** The documented definitions by code; a code declared in two sets is refused. */
export function catalogOf(sets: readonly object[]): ReadonlyMap<string, ErrorDefinition> {
  const catalog = new Map<string, ErrorDefinition>();
  const seen = new Set<string>();
  for (const set of sets) {
    for (const definition of Object.values(set) as ErrorDefinition[]) {
      if (seen.has(definition.code)) throw new Error(`Error code ${definition.code} is declared more than once`);
      seen.add(definition.code);
      if (definition.example !== undefined) catalog.set(definition.code, definition);
    }
  }
  return catalog;
}

const CATALOG = catalogOf(DEFINITION_SETS);

function entryOf(code: ErrorCode): ErrorDefinition & { example: string } {
  const entry = CATALOG.get(code);
  if (!entry) throw new Error(`Error code ${code} has no example`);
  return entry as ErrorDefinition & { example: string };
}

export function statusOf(code: ErrorCode): number {
  return httpOfKind(entryOf(code).kind).status;
}

/** The error body the API answers with this code, as an OpenAPI example shows it. */
export function exampleBody(code: ErrorCode): ErrorBody {
  const entry = entryOf(code);
  const { status, type } = httpOfKind(entry.kind);
  return {
    error: {
      type,
      code,
      message: entry.example,
      ...(entry.param !== undefined && { param: entry.param }),
      status,
      request_id: 'req_0b6f3f0e-9d1a-4a43-9f40-1f2d3c4b5a69',
      ...(entry.details !== undefined && { details: entry.details }),
    },
  };
}

export const API_ERRORS = 'billing:api-errors';

/**
 * The refusals a route's own handler can answer. Those its metadata already implies
 * (authentication, scope, input, idempotency, rate limit) are added by the OpenAPI builder.
 */
export function ApiErrors(...codes: ErrorCode[]): MethodDecorator {
  return SetMetadata(API_ERRORS, codes);
}

import { IntegrationEvent, invalidParameter, newId, parseCurrency } from '@app/shared-kernel';
import { normalizeEmail } from './email';

export interface CustomerState {
  organizationId: string;
  workspaceId: string;
  id: string;
  name: string;
  email: string | null;
  currency: string;
  externalId: string | null;
  metadata: Record<string, string>;
  createdAt: Date;
}

const MAX_METADATA_KEYS = 50;

/** A new customer; its primary wallet is opened in the same transaction (CustomerWallets). */
export function registerCustomer(fields: {
  organizationId: string;
  workspaceId: string;
  name: unknown;
  email?: unknown;
  currency: unknown;
  externalId?: unknown;
  metadata?: unknown;
  now: Date;
}): CustomerState {
  const name = typeof fields.name === 'string' ? fields.name.trim() : '';
  if (name.length === 0 || name.length > 500) throw invalidParameter('name', 'OUT_OF_RANGE', 'name must be 1 to 500 characters.');
  const externalId = fields.externalId === undefined || fields.externalId === null ? null : String(fields.externalId).trim();
  if (externalId !== null && (externalId.length === 0 || externalId.length > 255)) {
    throw invalidParameter('external_id', 'OUT_OF_RANGE', 'external_id must be 1 to 255 characters.');
  }
  return {
    organizationId: fields.organizationId,
    workspaceId: fields.workspaceId,
    id: newId(),
    name,
    email: fields.email === undefined || fields.email === null ? null : normalizeEmail(fields.email),
    currency: parseCurrency(fields.currency),
    externalId,
    metadata: validMetadata(fields.metadata),
    createdAt: fields.now,
  };
}

export function validMetadata(value: unknown, param = 'metadata'): Record<string, string> {
  if (value === undefined || value === null) return {};
  if (typeof value !== 'object' || Array.isArray(value))
    throw invalidParameter(param, 'INVALID_TYPE', `${param} must be an object.`);
  const entries = Object.entries(value as Record<string, unknown>);
  if (entries.length > MAX_METADATA_KEYS)
    throw invalidParameter(param, 'OUT_OF_RANGE', `${param} holds at most ${MAX_METADATA_KEYS} keys.`);
  for (const [key, item] of entries) {
    if (key.length === 0 || key.length > 40 || typeof item !== 'string' || item.length > 500) {
      throw invalidParameter(
        `${param}.${key}`,
        'INVALID_VALUE',
        `${param} maps keys of 1–40 characters to strings of up to 500.`,
      );
    }
  }
  return value as Record<string, string>;
}

/** Committed together with the customer and its primary wallet; relayed to other subscribers. */
@IntegrationEvent('identity.customer_created')
export class CustomerCreated {
  constructor(
    readonly organizationId: string,
    readonly workspaceId: string,
    readonly customerId: string,
    readonly currency: string,
    readonly occurredAt: string,
    readonly primaryWalletId: string,
  ) {}
}

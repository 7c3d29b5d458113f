import { randomBytes } from 'node:crypto';
import { invalidParameter, isEventTypeFilter } from '@app/shared-kernel';

export type WebhookEndpointStatus = 'enabled' | 'disabled';

/** A signing secret: `whsec_` + base64 of 32 random bytes (Standard Webhooks; the contract asks ≥ 24). */
export function newSigningSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

/** How long a rotated-out secret keeps signing beside the new one. */
export const SECRET_OVERLAP_MS = 24 * 60 * 60 * 1000;

const MAX_ENABLED_EVENTS = 100;
const MAX_DESCRIPTION = 500;
const MAX_METADATA_KEYS = 50;

/** `enabled_events`: 1–100 filters, each `*`, a catalog type or `prefix.*`; duplicates collapse. */
export function validEnabledEvents(value: unknown): string[] {
  if (!Array.isArray(value))
    throw invalidParameter('enabled_events', 'INVALID_TYPE', 'enabled_events must be an array of event types.');
  if (value.length === 0 || value.length > MAX_ENABLED_EVENTS) {
    throw invalidParameter('enabled_events', 'OUT_OF_RANGE', `enabled_events holds 1 to ${MAX_ENABLED_EVENTS} entries.`);
  }
  value.forEach((entry, index) => {
    if (!isEventTypeFilter(entry)) {
      throw invalidParameter(
        `enabled_events[${index}]`,
        'INVALID_VALUE',
        `${typeof entry === 'string' ? JSON.stringify(entry.slice(0, 100)) : 'This entry'} is not an event type: use "*", a type of the catalog or "prefix.*".`,
      );
    }
  });
  return [...new Set(value as string[])];
}

export function validDescription(value: unknown): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string') throw invalidParameter('description', 'INVALID_TYPE', 'description must be a string.');
  if (value.length > MAX_DESCRIPTION) {
    throw invalidParameter('description', 'OUT_OF_RANGE', `description holds at most ${MAX_DESCRIPTION} characters.`);
  }
  return value;
}

export function validMetadata(value: unknown): Record<string, string> {
  if (value === undefined || value === null) return {};
  if (typeof value !== 'object' || Array.isArray(value))
    throw invalidParameter('metadata', 'INVALID_TYPE', 'metadata must be an object.');
  const entries = Object.entries(value as Record<string, unknown>);
  if (entries.length > MAX_METADATA_KEYS) {
    throw invalidParameter('metadata', 'OUT_OF_RANGE', `metadata holds at most ${MAX_METADATA_KEYS} keys.`);
  }
  for (const [key, item] of entries) {
    if (key.length === 0 || key.length > 40 || typeof item !== 'string' || item.length > 500) {
      throw invalidParameter(
        `metadata.${key.slice(0, 40)}`,
        'INVALID_VALUE',
        'metadata maps keys of 1–40 characters to strings of up to 500.',
      );
    }
  }
  return value as Record<string, string>;
}

export function validStatus(value: unknown): WebhookEndpointStatus {
  if (value !== 'enabled' && value !== 'disabled') {
    throw invalidParameter('status', 'INVALID_VALUE', 'status must be enabled or disabled.');
  }
  return value;
}

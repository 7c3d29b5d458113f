import { ApiKey, ApiKeyStatus, KeyType } from '../../domain/api-key';

/** An API key as the API shows it: metadata only, never the secret or its hash. */
export interface ApiKeyView {
  id: string;
  name: string;
  prefix: string;
  keyType: KeyType;
  scopes: string[];
  allowedIps: string[];
  expiresAt: Date | null;
  lastUsedAt: Date | null;
  createdAt: Date;
  revokedAt: Date | null;
  revokesAt: Date | null;
  status: ApiKeyStatus;
}

export function toApiKeyView(key: ApiKey, now: Date): ApiKeyView {
  const s = key.snapshot;
  const status = key.status(now);
  return {
    id: s.id,
    name: s.name,
    prefix: s.prefix,
    keyType: s.keyType,
    scopes: [...s.scopes],
    allowedIps: [...s.allowedIps.entries],
    expiresAt: s.expiresAt,
    lastUsedAt: s.lastUsedAt,
    createdAt: s.createdAt,
    revokedAt: status === 'revoked' ? (s.revokedAt ?? s.revokesAt) : s.revokedAt,
    revokesAt: s.revokesAt,
    status,
  };
}

import { ApiKeyView } from './api-key.view';

/** The contract's API key object (never its secret): what the key routes answer and what its events carry. */
export function apiKeyResponse(key: ApiKeyView) {
  return {
    id: key.id,
    object: 'api_key' as const,
    name: key.name,
    prefix: key.prefix,
    key_type: key.keyType,
    scopes: key.scopes,
    allowed_ips: key.allowedIps,
    expires_at: key.expiresAt?.toISOString() ?? null,
    last_used_at: key.lastUsedAt?.toISOString() ?? null,
    created_at: key.createdAt.toISOString(),
    revoked_at: key.revokedAt?.toISOString() ?? null,
    revokes_at: key.revokesAt?.toISOString() ?? null,
    status: key.status,
  };
}

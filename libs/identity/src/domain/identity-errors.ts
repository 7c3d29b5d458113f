import { defineErrors } from '@app/shared-kernel';

/**
 * The identity context's refusals, each declared once (see
 * libs/shared-kernel/src/error-definitions.ts): throw sites create their DomainError from these,
 * and a definition with an `example` is a code the API documents
 * (apps/api/src/http/error-catalog.ts builds the OpenAPI examples from it).
 */
export const IdentityErrors = defineErrors({
  NOT_A_SESSION: { kind: 'invalid_request', example: 'Only a session token can end its own session; revoke API keys instead.' },
  UNAUTHENTICATED: {
    kind: 'unauthenticated',
    example: 'Send a valid API key or session token as `Authorization: Bearer <token>`.',
  },
  API_KEY_REVOKED: { kind: 'unauthenticated', example: 'This API key has been revoked.' },
  API_KEY_EXPIRED: { kind: 'unauthenticated', example: 'This API key has expired.' },
  INVALID_CREDENTIALS: { kind: 'unauthenticated', example: 'The email or password is wrong.' },
  IP_NOT_ALLOWED: { kind: 'forbidden', example: 'This API key may not be used from 198.51.100.7.' },
  EXPIRY_NOT_GRANTABLE: { kind: 'forbidden', example: 'A minted key cannot outlive the key that mints it.', param: 'expires_at' },
  IP_RANGE_NOT_GRANTABLE: {
    kind: 'forbidden',
    example: 'A minted key cannot reach addresses outside the minting key’s allowed_ips.',
    param: 'allowed_ips',
  },
  OWNER_ROLE_REQUIRED: { kind: 'forbidden', example: 'Only an owner may create an admin: admins decide approvals.' },
  WORKSPACE_FORBIDDEN: { kind: 'forbidden', example: 'This workspace belongs to another organization.' },
  WORKSPACE_MODE_MISMATCH: { kind: 'forbidden', example: 'An sk_test_ key cannot act on a live workspace.' },
  SCOPE_NOT_GRANTABLE: { kind: 'forbidden', example: 'You cannot grant a scope you do not hold: users:write.', param: 'scopes' },
  KEY_TYPE_NOT_GRANTABLE: { kind: 'forbidden', example: 'A sandbox principal cannot obtain an sk_live_ key.', param: 'key_type' },
  HUMAN_SESSION_REQUIRED: { kind: 'forbidden', example: 'Approvals are decided by a signed-in user, not an API key.' },
  SELF_APPROVAL_FORBIDDEN: { kind: 'forbidden', example: 'The requester cannot decide their own approval.' },
  WORKSPACE_NOT_FOUND: { kind: 'not_found', example: 'No workspace "eu-sandbox" in this organization.' },
  API_KEY_NOT_FOUND: { kind: 'not_found', example: 'No such API key.' },
  APPROVAL_NOT_FOUND: { kind: 'not_found', example: 'No such approval.' },
  VERIFICATION_NOT_FOUND: { kind: 'not_found', example: 'No such customer verification.' },
  API_KEY_NOT_ACTIVE: { kind: 'conflict', example: 'Only an active key can be rotated.' },
  APPROVAL_REQUIRED_HUMAN: {
    kind: 'conflict',
    example: 'This workspace requires a human approval for wallet.adjust; sign in to request it.',
  },
});

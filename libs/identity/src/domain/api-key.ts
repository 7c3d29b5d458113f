import { invalidParameter, newId } from '@app/shared-kernel';
import { IpAllowlist } from './ip-allowlist';
import { isScope, Scope } from './scopes';
import { displayPrefix, generateToken, hashToken } from './secret-token';
import { IdentityErrors } from './identity-errors';

export type KeyType = 'sk_live' | 'sk_test';
export type ApiKeyStatus = 'active' | 'expired' | 'revoked';

export const ROTATION_GRACE_MS = 24 * 60 * 60 * 1000;
const MAX_NAME_LENGTH = 200;

export interface Creator {
  type: 'api_key' | 'user' | 'system';
  id: string | null;
}

/**
 * What the minting principal may hand on: a key never carries a scope its minter lacks, nor a
 * key type it may not grant (see `grantableKeyTypes`), nor outlives its minter, nor works from
 * an address its minter may not use from.
 */
export interface Minter extends Creator {
  scopes: ReadonlySet<string>;
  keyTypes: ReadonlySet<KeyType>;
  /** The minting key's own expiry; null for a non-expiring key or a user (see `MinterLimits`). */
  expiresAt: Date | null;
  /** The minting key's own allowed_ips; unrestricted for a user. */
  allowedIps: IpAllowlist;
}

/** The limits a minting principal carries: an API key's expiry and addresses, none for a user. */
export type MinterLimits = Pick<Minter, 'expiresAt' | 'allowedIps'>;
export const UNLIMITED_MINTER: MinterLimits = { expiresAt: null, allowedIps: IpAllowlist.parse([]) };

const LIVE_GRANTS: ReadonlySet<KeyType> = new Set<KeyType>(['sk_live', 'sk_test']);
const SANDBOX_GRANTS: ReadonlySet<KeyType> = new Set<KeyType>(['sk_test']);

/**
 * A principal of a live workspace may grant both types (a key for test data only is the
 * narrower grant); a sandbox principal never obtains a sk_live key.
 */
export function grantableKeyTypes(mode: 'live' | 'sandbox'): ReadonlySet<KeyType> {
  return mode === 'sandbox' ? SANDBOX_GRANTS : LIVE_GRANTS;
}

export interface ApiKeyState {
  organizationId: string;
  id: string;
  name: string;
  prefix: string;
  secretHash: Buffer;
  keyType: KeyType;
  scopes: Scope[];
  allowedIps: IpAllowlist;
  expiresAt: Date | null;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
  revokesAt: Date | null;
  rotatedFromId: string | null;
  createdBy: Creator;
  createdAt: Date;
  /** Counts the key's changes: a save writes only over the version it was loaded at. */
  version: number;
}

/** A merge-patch of a key: absent or null leaves a field as it is. */
export interface ApiKeyChanges {
  name?: unknown;
  scopes?: unknown;
  allowedIps?: unknown;
}

export type ApiKeyField = 'name' | 'scopes' | 'allowed_ips';

export interface MintRequest {
  organizationId: string;
  name: unknown;
  scopes: unknown;
  allowedIps?: unknown;
  expiresAt?: Date | null;
  keyType: KeyType;
  minter: Minter;
  now: Date;
}

/** An API key and, once, its plaintext secret. */
export class ApiKey {
  /** The version the store holds (as loaded, or as inserted): `save` writes only over it. */
  readonly storedVersion: number;

  private constructor(private state: ApiKeyState) {
    this.storedVersion = state.version;
  }

  static restore(state: ApiKeyState): ApiKey {
    return new ApiKey(state);
  }

  static mint(request: MintRequest): { key: ApiKey; secret: string } {
    const name = validName(request.name);
    ApiKey.assertKeyTypeGrantable(request.keyType, request.minter, 'key_type');
    const scopes = ApiKey.grantableScopes(request.scopes, request.minter);
    const allowedIps = ApiKey.grantableAllowlist(request.allowedIps, request.minter);
    if (request.expiresAt && request.expiresAt.getTime() <= request.now.getTime()) {
      throw invalidParameter('expires_at', 'OUT_OF_RANGE', 'expires_at must be in the future.');
    }
    return ApiKey.issue({
      organizationId: request.organizationId,
      name,
      keyType: request.keyType,
      scopes,
      allowedIps,
      expiresAt: ApiKey.grantableExpiry(request.expiresAt, request.minter),
      rotatedFromId: null,
      createdBy: { type: request.minter.type, id: request.minter.id },
      now: request.now,
    });
  }

  private static issue(fields: {
    organizationId: string;
    name: string;
    keyType: KeyType;
    scopes: Scope[];
    allowedIps: IpAllowlist;
    expiresAt: Date | null;
    rotatedFromId: string | null;
    createdBy: Creator;
    now: Date;
  }): { key: ApiKey; secret: string } {
    const secret = generateToken(fields.keyType);
    const key = new ApiKey({
      ...fields,
      id: newId(),
      prefix: displayPrefix(secret),
      secretHash: hashToken(secret),
      lastUsedAt: null,
      revokedAt: null,
      revokesAt: null,
      createdAt: fields.now,
      version: 1,
    });
    return { key, secret };
  }

  private static grantableScopes(value: unknown, minter: Minter): Scope[] {
    if (!Array.isArray(value)) throw invalidParameter('scopes', 'INVALID_TYPE', 'scopes must be an array of scope names.');
    if (value.length === 0) throw invalidParameter('scopes', 'REQUIRED', 'At least one scope is required.');
    value.forEach((scope, index) => {
      if (!isScope(scope)) {
        throw invalidParameter(
          `scopes[${index}]`,
          'INVALID_SCOPE',
          `${JSON.stringify(scope)} is not a scope; see GET /v1/permissions.`,
        );
      }
    });
    const scopes = [...new Set(value as Scope[])].sort();
    ApiKey.assertGrantable(scopes, minter);
    return scopes;
  }

  private static assertGrantable(scopes: readonly Scope[], minter: Minter): void {
    const missing = scopes.filter((scope) => !minter.scopes.has(scope));
    if (missing.length > 0) {
      throw IdentityErrors.SCOPE_NOT_GRANTABLE.create(`You cannot grant scopes you do not hold: ${missing.join(', ')}.`, {
        param: 'scopes',
        details: { not_grantable: missing },
      });
    }
  }

  /** Omitted (or null), the minter's own addresses; given, within them. */
  private static grantableAllowlist(value: unknown, minter: Minter): IpAllowlist {
    if (value === undefined || value === null) return minter.allowedIps;
    return ApiKey.allowlistWithin(value, minter);
  }

  private static allowlistWithin(value: unknown, minter: Minter): IpAllowlist {
    if (!Array.isArray(value)) throw invalidParameter('allowed_ips', 'INVALID_TYPE', 'allowed_ips must be an array.');
    const requested = IpAllowlist.parse(value);
    if (requested.isWithin(minter.allowedIps)) return requested;
    const outside = requested.unrestricted ? [] : requested.entriesOutside(minter.allowedIps);
    throw IdentityErrors.IP_RANGE_NOT_GRANTABLE.create(
      `A key cannot be usable from addresses its minter may not use: keep allowed_ips within ${minter.allowedIps.entries.join(', ')}.`,
      { param: 'allowed_ips', details: { not_grantable: outside, minter_allowed_ips: [...minter.allowedIps.entries] } },
    );
  }

  /** Omitted (or null), the minter's own expiry; given, no later than it. */
  private static grantableExpiry(value: Date | null | undefined, minter: Minter): Date | null {
    if (value === undefined || value === null) return minter.expiresAt;
    if (!minter.expiresAt || value.getTime() <= minter.expiresAt.getTime()) return value;
    throw IdentityErrors.EXPIRY_NOT_GRANTABLE.create(
      `A key cannot outlive its minter, which expires at ${minter.expiresAt.toISOString()}.`,
      { param: 'expires_at', details: { minter_expires_at: minter.expiresAt.toISOString() } },
    );
  }

  private static assertKeyTypeGrantable(keyType: KeyType, minter: Minter, param: string): void {
    if (minter.keyTypes.has(keyType)) return;
    throw IdentityErrors.KEY_TYPE_NOT_GRANTABLE.create(`A sandbox principal cannot obtain ${keyType} keys.`, {
      param,
      details: { key_type: keyType },
    });
  }

  get snapshot(): Readonly<ApiKeyState> {
    return this.state;
  }

  get id(): string {
    return this.state.id;
  }

  status(now: Date): ApiKeyStatus {
    const { revokedAt, revokesAt, expiresAt } = this.state;
    if ((revokedAt && revokedAt <= now) || (revokesAt && revokesAt <= now)) return 'revoked';
    if (expiresAt && expiresAt <= now) return 'expired';
    return 'active';
  }

  /**
   * A successor with the same type, name, scopes, addresses and expiry; this key keeps working for
   * the grace period, never past its own expiry, and never longer than an earlier rotation set.
   */
  rotate(minter: Minter, now: Date): { successor: ApiKey; secret: string } {
    this.assertManageableBy(minter);
    const status = this.status(now);
    if (status !== 'active') {
      throw IdentityErrors.API_KEY_NOT_ACTIVE.create(`This API key is ${status} and cannot be rotated.`, {
        details: { status },
      });
    }
    const graceEnd = new Date(now.getTime() + ROTATION_GRACE_MS);
    const candidates = [graceEnd, this.state.expiresAt, this.state.revokesAt].filter((date): date is Date => date !== null);
    this.change({ revokesAt: new Date(Math.min(...candidates.map((date) => date.getTime()))) });
    const { key, secret } = ApiKey.issue({
      organizationId: this.state.organizationId,
      name: this.state.name,
      keyType: this.state.keyType,
      scopes: this.state.scopes,
      allowedIps: this.state.allowedIps,
      expiresAt: this.state.expiresAt,
      rotatedFromId: this.state.id,
      createdBy: { type: minter.type, id: minter.id },
      now,
    });
    return { successor: key, secret };
  }

  /**
   * Rotating and revoking both act on what the key grants, so both need what minting it would:
   * its key type and every one of its scopes. Otherwise a narrow key could revoke a wider one
   * (the root key) that it could not have minted or rotated.
   */
  private assertManageableBy(minter: Minter): void {
    ApiKey.assertKeyTypeGrantable(this.state.keyType, minter, 'id');
    ApiKey.assertGrantable(this.state.scopes, minter);
  }

  /** Revoking a revoked key changes nothing. */
  revoke(minter: Minter, now: Date): void {
    this.assertManageableBy(minter);
    if (this.state.revokedAt) return;
    this.change({ revokedAt: now });
  }

  /** The rotation grace has ended: the key becomes revoked for good. */
  completeRotation(now: Date): boolean {
    if (this.state.revokedAt || !this.state.revokesAt || this.state.revokesAt > now) return false;
    this.change({ revokedAt: this.state.revokesAt });
    return true;
  }

  /**
   * Renames or re-scopes an active key (merge-patch: absent or null leaves a field). The caller
   * needs what minting the key as it is would (as for rotate and revoke), and what minting it as
   * it becomes would: scopes it holds, addresses within its own. Returns the fields that changed;
   * none, and the key is untouched.
   */
  update(changes: ApiKeyChanges, minter: Minter, now: Date): ApiKeyField[] {
    this.assertManageableBy(minter);
    const status = this.status(now);
    if (status !== 'active') {
      throw IdentityErrors.API_KEY_NOT_ACTIVE.create(`This API key is ${status} and cannot be updated.`, {
        details: { status },
      });
    }
    const next: Partial<ApiKeyState> = {};
    if (changes.name !== undefined && changes.name !== null) {
      const name = validName(changes.name);
      if (name !== this.state.name) next.name = name;
    }
    if (changes.scopes !== undefined && changes.scopes !== null) {
      const scopes = ApiKey.grantableScopes(changes.scopes, minter);
      if (!sameList(scopes, this.state.scopes)) next.scopes = scopes;
    }
    if (changes.allowedIps !== undefined && changes.allowedIps !== null) {
      const allowedIps = ApiKey.allowlistWithin(changes.allowedIps, minter);
      if (!sameList(allowedIps.entries, this.state.allowedIps.entries)) next.allowedIps = allowedIps;
    }
    const changed = (Object.keys(next) as (keyof ApiKeyState)[]).map((field) => FIELD_NAMES[field]!);
    if (changed.length > 0) this.change(next);
    return changed;
  }

  /** Every change is one more version than the stored one, however many a transaction makes. */
  private change(next: Partial<ApiKeyState>): void {
    this.state = { ...this.state, ...next, version: this.storedVersion + 1 };
  }
}

const FIELD_NAMES: Partial<Record<keyof ApiKeyState, ApiKeyField>> = {
  name: 'name',
  scopes: 'scopes',
  allowedIps: 'allowed_ips',
};

function validName(value: unknown): string {
  const name = typeof value === 'string' ? value.trim() : '';
  if (name.length === 0 || name.length > MAX_NAME_LENGTH) {
    throw invalidParameter('name', 'OUT_OF_RANGE', `name must be 1 to ${MAX_NAME_LENGTH} characters after trimming.`);
  }
  return name;
}

function sameList(a: readonly string[], b: readonly string[]): boolean {
  const sorted = [...b].sort();
  return a.length === b.length && [...a].sort().every((item, index) => item === sorted[index]);
}

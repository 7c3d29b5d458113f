import { Injectable, OnModuleInit } from '@nestjs/common';
import { PgNotifications } from '@app/shared-kernel';
import { DataSource } from 'typeorm';
import { KeyType } from '../../domain/api-key';
import { IpAllowlist } from '../../domain/ip-allowlist';
import { Role, scopesOfRole } from '../../domain/scopes';
import { IDENTITY_CHANGES_CHANNEL } from './identity-changes';

export interface ApiKeyCredential {
  kind: 'api_key';
  id: string;
  organizationId: string;
  keyType: KeyType;
  scopes: ReadonlySet<string>;
  allowedIps: IpAllowlist;
  expiresAt: Date | null;
  revokedAt: Date | null;
  revokesAt: Date | null;
}

export interface SessionCredential {
  kind: 'session';
  id: string;
  organizationId: string;
  userId: string;
  scopes: ReadonlySet<string>;
  expiresAt: Date;
  revokedAt: Date | null;
}

export type Credential = ApiKeyCredential | SessionCredential;

const MAX_ENTRIES = 20_000;
/** A safety net only: committed revocations and rotations arrive by NOTIFY within milliseconds. */
const MAX_AGE_MS = 60_000;
const UNKNOWN_MAX_AGE_MS = 5_000;
/** Longest a change may take to commit and notify before caching resumes regardless. */
const CHANGE_WINDOW_MS = 10_000;

interface Entry {
  credential: Credential | null;
  loadedAt: number;
}

/**
 * Verified credentials by secret hash, in process. A miss costs one indexed query; revocation,
 * rotation and session ends evict the entry on every instance through LISTEN/NOTIFY.
 */
@Injectable()
export class CredentialCache implements OnModuleInit {
  private readonly byHash = new Map<string, Entry>();
  private readonly hashById = new Map<string, string>();
  /** Credentials changing right now (forgotten, NOTIFY not yet received): read, never cached. */
  private readonly changing = new Map<string, number>();

  constructor(
    private readonly dataSource: DataSource,
    private readonly notifications: PgNotifications,
  ) {}

  onModuleInit(): void {
    this.notifications.subscribe(IDENTITY_CHANGES_CHANNEL, {
      onNotification: (payload) => {
        const [kind, id] = payload.split(':');
        if (kind === 'api_key' || kind === 'session') {
          this.evictId(id);
          this.changing.delete(id);
        }
      },
      onResubscribe: () => this.clear(),
    });
  }

  async find(hash: Buffer, kind: 'api_key' | 'session'): Promise<Credential | null> {
    const key = hash.toString('base64');
    const cached = this.byHash.get(key);
    if (cached && performance.now() - cached.loadedAt < (cached.credential ? MAX_AGE_MS : UNKNOWN_MAX_AGE_MS)) {
      // Refresh its place: the Map's insertion order is the eviction order.
      this.byHash.delete(key);
      this.byHash.set(key, cached);
      return cached.credential;
    }
    const credential = kind === 'api_key' ? await this.loadApiKey(hash) : await this.loadSession(hash);
    this.remember(key, credential);
    return credential;
  }

  clear(): void {
    this.byHash.clear();
    this.hashById.clear();
  }

  /**
   * Called inside the changing transaction: evicts at once, and until this change's NOTIFY
   * arrives (after commit) the credential is read from the database on every use rather than
   * cached, so no request can re-cache the state from before the commit.
   */
  forget(id: string): void {
    this.evictId(id);
    this.changing.set(id, performance.now());
  }

  private isChanging(id: string): boolean {
    const since = this.changing.get(id);
    if (since === undefined) return false;
    if (performance.now() - since < CHANGE_WINDOW_MS) return true;
    this.changing.delete(id);
    return false;
  }

  private evictId(id: string): void {
    const key = this.hashById.get(id);
    if (key) this.byHash.delete(key);
    this.hashById.delete(id);
  }

  private remember(key: string, credential: Credential | null): void {
    if (this.byHash.size >= MAX_ENTRIES) {
      const oldest = this.byHash.keys().next().value as string;
      const entry = this.byHash.get(oldest);
      if (entry?.credential) this.hashById.delete(entry.credential.id);
      this.byHash.delete(oldest);
    }
    if (credential && this.isChanging(credential.id)) return;
    this.byHash.set(key, { credential, loadedAt: performance.now() });
    if (credential) this.hashById.set(credential.id, key);
  }

  private async loadApiKey(hash: Buffer): Promise<ApiKeyCredential | null> {
    const [row] = await this.dataSource.query(
      `SELECT id, organization_id, key_type, scopes, allowed_ips::text[] AS allowed_ips, expires_at, revoked_at, revokes_at
         FROM api_keys WHERE secret_hash = $1`,
      [hash],
    );
    if (!row) return null;
    return {
      kind: 'api_key',
      id: row.id,
      organizationId: row.organization_id,
      keyType: row.key_type,
      scopes: new Set(row.scopes),
      allowedIps: IpAllowlist.parse(row.allowed_ips),
      expiresAt: row.expires_at,
      revokedAt: row.revoked_at,
      revokesAt: row.revokes_at,
    };
  }

  private async loadSession(hash: Buffer): Promise<SessionCredential | null> {
    const [row] = await this.dataSource.query(
      `SELECT s.id, s.organization_id, s.user_id, s.expires_at, s.revoked_at, u.role
         FROM sessions s JOIN users u ON u.organization_id = s.organization_id AND u.id = s.user_id
        WHERE s.token_hash = $1`,
      [hash],
    );
    if (!row) return null;
    return {
      kind: 'session',
      id: row.id,
      organizationId: row.organization_id,
      userId: row.user_id,
      scopes: new Set(scopesOfRole(row.role as Role)),
      expiresAt: row.expires_at,
      revokedAt: row.revoked_at,
    };
  }
}

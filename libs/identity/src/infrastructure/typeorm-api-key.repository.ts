import { TransactionHost } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { Injectable } from '@nestjs/common';
import { isUuid, SharedErrors } from '@app/shared-kernel';
import { ApiKey, KeyType } from '../domain/api-key';
import { IpAllowlist } from '../domain/ip-allowlist';
import { ApiKeyRepository } from '../domain/repositories';
import { Scope } from '../domain/scopes';

export interface ApiKeyRow {
  organization_id: string;
  id: string;
  name: string;
  prefix: string;
  secret_hash: Buffer;
  key_type: KeyType;
  scopes: Scope[];
  allowed_ips: string[];
  expires_at: Date | null;
  last_used_at: Date | null;
  revoked_at: Date | null;
  revokes_at: Date | null;
  rotated_from_id: string | null;
  created_by_type: 'api_key' | 'user' | 'system';
  created_by_id: string | null;
  created_at: Date;
  version: number;
}

export const API_KEY_COLUMNS = `organization_id, id, name, prefix, secret_hash, key_type, scopes, allowed_ips::text[] AS allowed_ips,
  expires_at, last_used_at, revoked_at, revokes_at, rotated_from_id, created_by_type, created_by_id, created_at, version`;

export function toApiKey(row: ApiKeyRow): ApiKey {
  return ApiKey.restore({
    organizationId: row.organization_id,
    id: row.id,
    name: row.name,
    prefix: row.prefix,
    secretHash: row.secret_hash,
    keyType: row.key_type,
    scopes: row.scopes,
    allowedIps: IpAllowlist.parse(row.allowed_ips),
    expiresAt: row.expires_at,
    lastUsedAt: row.last_used_at,
    revokedAt: row.revoked_at,
    revokesAt: row.revokes_at,
    rotatedFromId: row.rotated_from_id,
    createdBy: { type: row.created_by_type, id: row.created_by_id },
    createdAt: row.created_at,
    version: row.version,
  });
}

function toParameters(key: ApiKey): unknown[] {
  const s = key.snapshot;
  return [
    s.organizationId,
    s.id,
    s.name,
    s.prefix,
    s.secretHash,
    s.keyType,
    s.scopes,
    s.allowedIps.entries,
    s.expiresAt,
    s.lastUsedAt,
    s.revokedAt,
    s.revokesAt,
    s.rotatedFromId,
    s.createdBy.type,
    s.createdBy.id,
    s.createdAt,
    s.version,
  ];
}

@Injectable()
export class TypeOrmApiKeyRepository extends ApiKeyRepository {
  constructor(private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>) {
    super();
  }

  async findForUpdate(organizationId: string, id: string): Promise<ApiKey | undefined> {
    if (!isUuid(id)) return undefined;
    const rows: ApiKeyRow[] = await this.txHost.tx.query(
      `SELECT ${API_KEY_COLUMNS} FROM api_keys WHERE organization_id = $1 AND id = $2 FOR UPDATE`,
      [organizationId, id],
    );
    return rows[0] && toApiKey(rows[0]);
  }

  async insert(key: ApiKey): Promise<void> {
    await this.txHost.tx.query(
      `INSERT INTO api_keys (organization_id, id, name, prefix, secret_hash, key_type, scopes, allowed_ips, expires_at,
         last_used_at, revoked_at, revokes_at, rotated_from_id, created_by_type, created_by_id, created_at, version)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8::inet[], $9, $10, $11, $12, $13, $14, $15, $16, $17)`,
      toParameters(key),
    );
  }

  /**
   * Every column of the key from its snapshot (a field the aggregate gains is written by adding it
   * to `toParameters`, which insert shares), over the version it was loaded at: a key changed since
   * is refused, not overwritten. `last_used_at` never goes back: the LastUsedRecorder writes it
   * outside the key's transactions (after its lock, so the version check does not cover it).
   */
  async save(key: ApiKey): Promise<void> {
    // For an UPDATE, TypeORM answers [rows, row count].
    const [, saved]: [unknown[], number] = await this.txHost.tx.query(
      `UPDATE api_keys
          SET name = $3, prefix = $4, secret_hash = $5, key_type = $6, scopes = $7, allowed_ips = $8::inet[], expires_at = $9,
              last_used_at = GREATEST(last_used_at, $10), revoked_at = $11, revokes_at = $12, rotated_from_id = $13,
              created_by_type = $14, created_by_id = $15, created_at = $16, version = $17
        WHERE organization_id = $1 AND id = $2 AND version = $18
        RETURNING id`,
      [...toParameters(key), key.storedVersion],
    );
    if (saved !== 1) {
      throw SharedErrors.CONFLICT.create('The API key was changed meanwhile; read it again and retry.', {
        details: { id: key.id },
      });
    }
  }
}

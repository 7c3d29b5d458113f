import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { ApiKeyReads } from '../application/api-keys/api-key-reads';
import { ApiKey, KeyType } from '../domain/api-key';
import { API_KEY_COLUMNS, ApiKeyRow, toApiKey } from './typeorm-api-key.repository';

@Injectable()
export class TypeOrmApiKeyReads extends ApiKeyReads {
  constructor(private readonly dataSource: DataSource) {
    super();
  }

  async list(organizationId: string, keyTypes: KeyType[], after: unknown[] | undefined, limit: number): Promise<ApiKey[]> {
    const rows: ApiKeyRow[] = await this.dataSource.query(
      `SELECT ${API_KEY_COLUMNS} FROM api_keys
        WHERE organization_id = $1 AND key_type = ANY($5::text[])
          AND ($2::timestamptz IS NULL OR (created_at, id) < ($2, $3::uuid))
        ORDER BY created_at DESC, id DESC LIMIT $4`,
      [organizationId, after?.[0] ?? null, after?.[1] ?? null, limit, keyTypes],
    );
    return rows.map(toApiKey);
  }
}

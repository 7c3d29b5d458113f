import { ApiKey, KeyType } from '../../domain/api-key';

/**
 * The read side of API keys (GET /v1/api_keys), outside any transaction: keyset pages newest
 * first, `(created_at, id)` descending. A port (also the DI token); the module binds the adapter
 * (infrastructure/typeorm-api-key.reads.ts).
 */
export abstract class ApiKeyReads {
  /**
   * Up to `limit` keys of the organization of the given types after `after` (a position
   * `[created_at, id]`, undefined: from the newest).
   */
  abstract list(organizationId: string, keyTypes: KeyType[], after: unknown[] | undefined, limit: number): Promise<ApiKey[]>;
}

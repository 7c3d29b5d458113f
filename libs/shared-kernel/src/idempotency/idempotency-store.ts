import { TransactionHost } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { Injectable } from '@nestjs/common';
import { Clock } from '../clock';
import { preparedQuery } from '../persistence/prepared-query';
import { executeWrites, SqlWrite } from '../persistence/sql-write';
import { PlatformOptions } from '../platform-options';
import { RequestFingerprint } from './request-fingerprint';
import { ResponseVault } from './response-vault';

/**
 * (principal, workspace, key): one key names one request of its principal in a workspace,
 * whatever route it is sent to. What the request was (method, route, parameters, body, query)
 * is its fingerprint: the same key with another fingerprint is refused, never run again.
 */
export interface IdempotencyScope {
  organizationId: string;
  workspaceId: string;
  principalId: string;
  key: string;
}

/** The request a key was used for: the fingerprint decides; method and route template are kept for the reader. */
export interface KeyedRequest {
  method: string;
  route: string;
  fingerprint: string;
}

export interface StoredResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** A completed request's response, or null when it was not kept (a pure route's, or one over the size limit). */
export type Claim =
  { outcome: 'in_use' } | { outcome: 'new' } | { outcome: 'completed'; fingerprint: string; response: StoredResponse | null };

/**
 * 256 KiB sealed: a 1,000-item batch debit's answer fits many times over, while one key can no
 * longer hold megabytes for 24 hours.
 */
export const DEFAULT_IDEMPOTENCY_RESPONSE_MAX_BYTES = 256 * 1024;

/**
 * Claims and records live in the caller's transaction, beside the command's effects: a crash
 * can leave neither an effect without its record nor a record without its effect. The
 * primary key on the scope makes a second record impossible, whatever the code does.
 */
@Injectable()
export class IdempotencyStore {
  private readonly vault: ResponseVault;
  private readonly fingerprints: RequestFingerprint;
  /** IDEMPOTENCY_RESPONSE_MAX_BYTES: the most a kept response may weigh once sealed. */
  readonly maxResponseBytes: number;

  constructor(
    private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>,
    private readonly clock: Clock,
    options: PlatformOptions,
  ) {
    this.vault = new ResponseVault(options.appSecret);
    this.fingerprints = new RequestFingerprint(options.appSecret);
    this.maxResponseBytes = options.idempotencyResponseMaxBytes;
  }

  /** The fingerprint of a request's canonical text (keyed: a body may carry a password). */
  fingerprint(canonical: string): string {
    return this.fingerprints.of(canonical);
  }

  /** Must run inside the request's transaction: the lock is held until it ends. */
  async claim(scope: IdempotencyScope): Promise<Claim> {
    const [row] = await preparedQuery<{
      locked: boolean;
      fingerprint: string | null;
      response_status: number;
      response_headers: Record<string, string>;
      response_body: string | null;
    }>(this.txHost.tx, 'SELECT * FROM idempotency_claim($1, $2, $3, $4)', [
      scope.organizationId,
      scope.workspaceId,
      scope.principalId,
      scope.key,
    ]);
    // A stored record is final: it replays even while another request (another replay) holds the key.
    if (row.fingerprint === null) return row.locked ? { outcome: 'new' } : { outcome: 'in_use' };
    return {
      outcome: 'completed',
      fingerprint: row.fingerprint,
      response:
        row.response_body === null
          ? null
          : { status: row.response_status, headers: row.response_headers, body: this.vault.open(row.response_body) },
    };
  }

  /**
   * Keeps the response for replays when its sealed form is within the size limit; above it, only
   * the request's fingerprint and status (answers whether it was kept).
   */
  async record(scope: IdempotencyScope, request: KeyedRequest, response: StoredResponse): Promise<boolean> {
    const sealed = this.vault.seal(response.body);
    const kept = sealed.length <= this.maxResponseBytes;
    // The transaction's last write: it goes with the handler's deferred writes and the COMMIT.
    await executeWrites(
      this.txHost.tx,
      [this.insertWrite(scope, request, kept ? response : { ...response, headers: {} }, kept ? sealed : null)],
      {
        defer: 'alongside_pending',
      },
    );
    return kept;
  }

  /**
   * For a pure route, once it has answered: the request's fingerprint and status, no response (a
   * replay runs again). Needs no claim: if a concurrent request recorded the key first, its record stands.
   */
  async recordWithoutResponse(scope: IdempotencyScope, request: KeyedRequest, status: number): Promise<void> {
    await executeWrites(this.txHost.tx, [
      this.insertWrite(scope, request, { status, headers: {}, body: '' }, null, 'keep_existing'),
    ]);
  }

  private insertWrite(
    scope: IdempotencyScope,
    request: KeyedRequest,
    response: StoredResponse,
    sealedBody: string | null,
    onConflict: 'fail' | 'keep_existing' = 'fail',
  ): SqlWrite {
    return {
      text: `INSERT INTO idempotency_records (organization_id, workspace_id, principal_id, method, route, idempotency_key,
         fingerprint, response_status, response_headers, response_body, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)${onConflict === 'keep_existing' ? ' ON CONFLICT DO NOTHING' : ''}`,
      values: [
        scope.organizationId,
        scope.workspaceId,
        scope.principalId,
        request.method,
        request.route,
        scope.key,
        request.fingerprint,
        response.status,
        JSON.stringify(response.headers),
        sealedBody,
        this.clock.now(),
      ],
    };
  }
}

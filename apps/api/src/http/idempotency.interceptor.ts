import { TransactionHost } from '@nestjs-cls/transactional';
import { ClsService } from 'nestjs-cls';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { CallHandler, ExecutionContext, Injectable, NestInterceptor, SetMetadata } from '@nestjs/common';
import {
  Claim,
  DomainError,
  IDEMPOTENCY_KEY_KEY,
  IdempotencyScope,
  IdempotencyStore,
  isTransientWriteFailure,
  KeyedRequest,
  StoredResponse,
} from '@app/shared-kernel';
import { FastifyReply } from 'fastify';
import { from, lastValueFrom, Observable } from 'rxjs';
import { AuthenticatedRequest } from './auth/auth.guard';
import { toErrorResponse } from './error-response';
import { keyedRequest } from './keyed-request';
import { RequestValidationError } from './validation';
import { HttpErrors } from './http-errors';

const KEY_PATTERN = /^[\x20-\x7e]{1,255}$/;
const PURE = 'billing:pure-response';
/** Refusals that are not the handler's answer to this request: a retry may well succeed. */
const NOT_STORED = new Set([401, 403, 429]);
const JSON_TYPE = 'application/json; charset=utf-8';
/** Response headers worth replaying; the rest (request id, rate limits) belong to the retry. */
const REPLAYED_HEADERS = ['location'];
/**
 * How long a keyed request's transaction keeps running again when it fails as a whole (a stale
 * guarded write, a deadlock, a serialization failure, a shard placement that moved under it):
 * rolled back and run again after a pause growing with each attempt, up to a quarter of a second,
 * before the failure reaches the client. Ten seconds, the lock_timeout: a tenant's shards moving
 * on Citus deadlock its transactions against the switch-over again and again for a few seconds.
 */
const TRANSIENT_RETRY_BUDGET_MS = 10_000;
const retryPause = (attempt: number) =>
  new Promise((resolve) => setTimeout(resolve, Math.min(20 * attempt * attempt, 250) + Math.random() * 20));

/**
 * A route that changes nothing and answers the same request the same way (a render, an
 * evaluation): the key is accepted but not required, and nothing of its response is stored.
 */
export const PureResponse = () => SetMetadata(PURE, true);

export type IdempotencyKeyRule = 'required' | 'optional' | 'none';

/**
 * Which requests run under an Idempotency-Key: every authenticated POST, where the key is
 * required unless the route is a @PureResponse. The interceptor enforces this and the
 * OpenAPI document declares the header from it.
 */
export function idempotencyKeyRule(method: string, authenticated: boolean, handler: object): IdempotencyKeyRule {
  if (method.toUpperCase() !== 'POST' || !authenticated) return 'none';
  return Reflect.getMetadata(PURE, handler) === true ? 'optional' : 'required';
}

const REPLAY_AS_CONFLICT = 'billing:idempotency-replay-as-conflict';
/**
 * Transfers: a key already used for a completed transfer is refused with 409
 * IDEMPOTENCY_KEY_ALREADY_PROCESSED naming the transfer (`details.<field>`), not replayed.
 */
export const ReplayAsConflict = (field: string) => SetMetadata(REPLAY_AS_CONFLICT, field);

export function replayAsConflictField(handler: object): string | undefined {
  return Reflect.getMetadata(REPLAY_AS_CONFLICT, handler) as string | undefined;
}

/**
 * Every authenticated POST runs once per Idempotency-Key: the claim, the handler's effects and
 * the stored response share one transaction, so a retry sees either nothing or the whole
 * outcome, and replays the stored bytes with `Idempotent-Replayed: true`. The key is scoped to
 * (principal, workspace) alone; the route, its canonical parameters, the body and the query
 * are the request's fingerprint (see keyed-request.ts), so a path spelled differently replays
 * and another route with the same key is refused.
 */
@Injectable()
export class IdempotencyInterceptor implements NestInterceptor {
  constructor(
    private readonly store: IdempotencyStore,
    private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>,
    private readonly cls: ClsService,
  ) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const request = context.switchToHttp().getRequest<AuthenticatedRequest>();
    const { actor } = request;
    const rule = idempotencyKeyRule(request.method, actor !== undefined, context.getHandler());
    if (rule === 'none' || actor === undefined) return next.handle();
    const header = request.headers['idempotency-key'];
    if (header === undefined && rule === 'optional') return next.handle();
    if (typeof header !== 'string' || header.length === 0) {
      throw HttpErrors.IDEMPOTENCY_KEY_REQUIRED.create('Send an Idempotency-Key header with every POST.', {
        param: 'Idempotency-Key',
      });
    }
    if (!KEY_PATTERN.test(header)) {
      throw HttpErrors.IDEMPOTENCY_KEY_INVALID.create('Idempotency-Key must be 1 to 255 printable ASCII characters.', {
        param: 'Idempotency-Key',
      });
    }
    // Events written by this request name its key (`request.idempotency_key`).
    if (this.cls.isActive()) this.cls.set(IDEMPOTENCY_KEY_KEY, header);
    const scope: IdempotencyScope = {
      organizationId: actor.organizationId,
      workspaceId: actor.workspaceId,
      principalId: actor.principal.id,
      key: header,
    };
    const reply = context.switchToHttp().getResponse<FastifyReply>();
    const conflictField = replayAsConflictField(context.getHandler());
    const keyed = keyedRequest(request, (canonical) => this.store.fingerprint(canonical));
    const call: KeyedCall = { scope, request: keyed, reply, requestId: String(request.id), conflictField };
    return from(rule === 'optional' ? this.executePure(call, next) : this.execute(call, next));
  }

  /**
   * A pure route keeps only the request's fingerprint and status, recorded once it has answered as
   * a stored response would be (not after a validation 400, 401, 403, 429 or 5xx): the key on
   * another request is refused (422), the same request runs again (a render is byte-stable), and
   * no transaction is held while it runs. Two requests racing on a new key may both run: harmless
   * for a route that changes nothing, and each run counts against its own limits.
   */
  private async executePure(call: KeyedCall, next: CallHandler): Promise<unknown> {
    const replayed = await this.txHost.withTransaction(async () => (await this.checkedClaim(call)).outcome === 'completed');
    let result: unknown;
    try {
      result = await lastValueFrom(next.handle(), { defaultValue: undefined });
    } catch (error) {
      const refusal = storableRefusal(error, call.requestId);
      if (!replayed && refusal) await this.store.recordWithoutResponse(call.scope, call.request, refusal.status);
      throw error;
    }
    if (replayed) void call.reply.header('Idempotent-Replayed', 'true');
    else await this.store.recordWithoutResponse(call.scope, call.request, call.reply.statusCode);
    return result;
  }

  /**
   * The claim, the handler and the record share one transaction. A refusal by the handler
   * (a 4xx the client must see again on retry) rolls that transaction back, effects included,
   * and is recorded in a second one; without a savepoint around the handler, a success costs
   * two round trips less. A transaction that fails as a whole for a transient reason
   * (isTransientWriteFailure) rolls back and runs again, handler included: nothing of the failed
   * run is kept, and the key is still free.
   */
  private async execute(call: KeyedCall, next: CallHandler): Promise<string | Buffer> {
    const started = performance.now();
    for (let attempt = 1; ; attempt += 1) {
      try {
        return await this.txHost.withTransaction(() => this.runOnce(call, next));
      } catch (error) {
        if (isTransientWriteFailure(error) && performance.now() - started < TRANSIENT_RETRY_BUDGET_MS) {
          await retryPause(attempt);
          continue;
        }
        if (!(error instanceof HandlerRefusal)) throw error;
        return this.txHost.withTransaction(() => this.recordRefusal(call, error.response));
      }
    }
  }

  private async runOnce(call: KeyedCall, next: CallHandler): Promise<string | Buffer> {
    const replayed = await this.claim(call);
    if (replayed !== undefined) return replayed;
    let response: StoredResponse;
    try {
      const result = await lastValueFrom(next.handle(), { defaultValue: undefined });
      // Nest set the route's status before the handler ran; a handler may have changed it (202).
      response = Buffer.isBuffer(result)
        ? {
            // A binary answer (a PDF preview) is kept base64-encoded with its media type.
            status: call.reply.statusCode,
            headers: { ...this.replayedHeaders(call.reply), 'content-type': String(call.reply.getHeader('content-type')) },
            body: result.toString('base64'),
          }
        : {
            status: call.reply.statusCode,
            headers: this.replayedHeaders(call.reply),
            body: result === undefined ? '' : JSON.stringify(result),
          };
    } catch (error) {
      const refusal = storableRefusal(error, call.requestId);
      if (!refusal || isTransientWriteFailure(error)) throw error;
      throw new HandlerRefusal(refusal);
    }
    // A completed request of a replay-as-conflict route is never replayed: keep only its id.
    const stored =
      call.conflictField && response.status < 300
        ? {
            ...response,
            body: JSON.stringify({
              [call.conflictField]: (JSON.parse(response.body) as Record<string, unknown>)[call.conflictField],
            }),
          }
        : response;
    // Above the size limit only the fingerprint is kept: a replay answers 409 ALREADY_PROCESSED.
    await this.store.record(call.scope, call.request, stored);
    return this.send(call.reply, response, false);
  }

  /**
   * The key was free while the handler ran; if another request took it since, that request's
   * outcome is the key's (replayed, or 409 while it runs), so every caller sees the same answer.
   */
  private async recordRefusal(call: KeyedCall, refusal: StoredResponse): Promise<string | Buffer> {
    const replayed = await this.claim(call);
    if (replayed !== undefined) return replayed;
    await this.store.record(call.scope, call.request, refusal);
    return this.send(call.reply, refusal, false);
  }

  /** Takes the key for this transaction; answers a completed request's replay, or undefined when the key is new. */
  private async claim(call: KeyedCall): Promise<string | Buffer | undefined> {
    const claim = await this.checkedClaim(call);
    if (claim.outcome === 'new') return undefined;
    if (claim.response === null) throw responseNotKept(this.store.maxResponseBytes);
    if (call.conflictField && claim.response.status < 300) throw alreadyProcessed(call.conflictField, claim.response.body);
    return this.send(call.reply, claim.response, true);
  }

  /** The key's claim, refused while another request holds it or when it names another request. */
  private async checkedClaim({ scope, request }: KeyedCall): Promise<Exclude<Claim, { outcome: 'in_use' }>> {
    const claim = await this.store.claim(scope);
    if (claim.outcome === 'in_use') {
      throw HttpErrors.IDEMPOTENCY_KEY_IN_USE.create('A request with this Idempotency-Key is still being processed.', {
        param: 'Idempotency-Key',
      });
    }
    if (claim.outcome === 'new') return claim;
    if (claim.fingerprint !== request.fingerprint) {
      throw HttpErrors.IDEMPOTENCY_KEY_REUSED.create(
        'This Idempotency-Key was used for a different request (another route, path, body or query).',
        { param: 'Idempotency-Key' },
      );
    }
    return claim;
  }

  private replayedHeaders(reply: FastifyReply): Record<string, string> {
    const headers: Record<string, string> = {};
    for (const name of REPLAYED_HEADERS) {
      const value = reply.getHeader(name);
      if (typeof value === 'string') headers[name] = value;
    }
    return headers;
  }

  /** JSON answers are stored as text without a media type; any other answer with its media type, base64-encoded. */
  private send(reply: FastifyReply, response: StoredResponse, replayed: boolean): string | Buffer {
    const binary = response.headers['content-type'] !== undefined;
    void reply.status(response.status).headers(response.headers);
    if (!binary) void reply.header('content-type', JSON_TYPE);
    if (replayed) void reply.header('Idempotent-Replayed', 'true');
    return binary ? Buffer.from(response.body, 'base64') : response.body;
  }
}

interface KeyedCall {
  scope: IdempotencyScope;
  request: KeyedRequest;
  reply: FastifyReply;
  requestId: string;
  conflictField: string | undefined;
}

/** The handler's 4xx answer, carried out of its transaction so that the transaction rolls back. */
class HandlerRefusal extends Error {
  constructor(readonly response: StoredResponse) {
    super('handler refusal');
  }
}

/** The handler's 4xx answer, as stored for replays; undefined for what is never stored (validation 400, 401, 403, 429, 5xx). */
function storableRefusal(error: unknown, requestId: string): StoredResponse | undefined {
  if (!(error instanceof DomainError) || error instanceof RequestValidationError) return undefined;
  const refusal = toErrorResponse(error, requestId);
  if (NOT_STORED.has(refusal.status) || refusal.status >= 500) return undefined;
  return { status: refusal.status, headers: refusal.headers, body: JSON.stringify(refusal.body) };
}

function responseNotKept(limitBytes: number): DomainError {
  return HttpErrors.IDEMPOTENCY_KEY_ALREADY_PROCESSED.create(
    'This Idempotency-Key was already used for a completed request whose response was too large to keep for replays.',
    { param: 'Idempotency-Key', details: { response_kept: false, response_limit_bytes: limitBytes } },
  );
}

function alreadyProcessed(field: string, body: string): DomainError {
  const value = (JSON.parse(body) as Record<string, unknown>)[field] ?? null;
  return HttpErrors.IDEMPOTENCY_KEY_ALREADY_PROCESSED.create('This Idempotency-Key was already used for a completed request.', {
    param: 'Idempotency-Key',
    details: { [field]: value },
  });
}

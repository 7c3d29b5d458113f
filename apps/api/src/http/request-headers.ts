import { randomUUID } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import { Socket } from 'node:net';
import { DomainError } from '@app/shared-kernel';
import { FastifyRequest } from 'fastify';
import { toErrorResponse } from './error-response';
import { HttpErrors } from './http-errors';

/**
 * Header fields the API reads as one value. RFC 9110 §5.3 forbids repeating a field that is not
 * a list, and Node would hide the repetition: it keeps the first `Authorization` and
 * `Content-Type` and joins two `Idempotency-Key` or `X-Workspace-Id` lines into "a, b", a new
 * key or an unknown workspace. A proxy may read the other copy than we do, so a repeated field
 * is refused before anything reads it.
 */
const SINGLE_VALUED = new Set(['authorization', 'idempotency-key', 'x-workspace-id', 'content-type']);

const SHOWN_NAMES: Record<string, string> = {
  authorization: 'Authorization',
  'idempotency-key': 'Idempotency-Key',
  'x-workspace-id': 'X-Workspace-Id',
  'content-type': 'Content-Type',
};

/**
 * An onRequest hook: 400 DUPLICATE_HEADER naming the first single-valued field sent twice, and
 * 400 MALFORMED_REQUEST for an HTTP/1.1 request without Host (RFC 9112 §3.2; Node's own check
 * answered it with an empty body, so the server leaves it to this hook).
 */
export async function refuseAmbiguousHeaders(request: FastifyRequest): Promise<void> {
  if (request.raw.httpVersion === '1.1' && request.raw.headers.host === undefined) {
    throw HttpErrors.MALFORMED_REQUEST.create('An HTTP/1.1 request must send a Host header.', {
      param: 'Host',
    });
  }
  const raw = request.raw.rawHeaders;
  const seen = new Set<string>();
  for (let index = 0; index < raw.length; index += 2) {
    const name = raw[index].toLowerCase();
    if (!SINGLE_VALUED.has(name)) continue;
    if (seen.has(name)) {
      throw HttpErrors.DUPLICATE_HEADER.create(`Send the ${SHOWN_NAMES[name]} header once.`, {
        param: SHOWN_NAMES[name],
      });
    }
    seen.add(name);
  }
}

/** How long a refused connection may keep sending what is left of its request before it is cut. */
const DRAIN_MS = 1_000;
const answered = new WeakSet<Socket>();

/**
 * Fastify's `clientErrorHandler`: a request Node's HTTP parser refuses before any route sees it
 * (headers past the 16 KB limit: 431; a control character in a header, a broken request line or
 * framing: 400; Fastify's request timeout is off) is answered with the contract's error body and a Request-Id, like every other
 * refusal, instead of Fastify's own body. The connection is then closed gracefully: the client
 * may still be writing a 100 KB header, and cutting it at once (Fastify destroys the socket)
 * resets the connection before the client has read the answer.
 */
export function answerClientError(error: Error & { code?: string }, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  // The parser stays failed: further bytes (and the end of the stream) report the same error again.
  if (answered.has(socket)) return;
  answered.add(socket);
  const requestId = `req_${randomUUID()}`;
  const { status, body, headers } = toErrorResponse(clientError(error), requestId);
  const text = JSON.stringify(body);
  const head = [
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}`,
    `Content-Type: application/json; charset=utf-8`,
    `Content-Length: ${Buffer.byteLength(text)}`,
    `Request-Id: ${requestId}`,
    'X-Content-Type-Options: nosniff',
    ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`),
    'Connection: close',
  ].join('\r\n');
  if (socket.writable) socket.end(`${head}\r\n\r\n${text}`);
  socket.resume();
  setTimeout(() => socket.destroy(), DRAIN_MS).unref();
}

function clientError(error: Error & { code?: string }): DomainError {
  if (error.code === 'HPE_HEADER_OVERFLOW')
    return HttpErrors.HEADERS_TOO_LARGE.create('The request headers exceed the 16 KB limit.');
  return HttpErrors.MALFORMED_REQUEST.create(
    'The request could not be read: its request line, a header or its framing is malformed.',
  );
}

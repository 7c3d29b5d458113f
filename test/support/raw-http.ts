import http from 'node:http';
import { AddressInfo, connect } from 'node:net';
import { TestApp } from './test-app';

/**
 * HTTP below supertest, for what superagent cannot send: a header field line repeated (an array
 * of [name, value] pairs goes out as is, one line each), header values of raw bytes (a latin1
 * string carries them: UTF-8 text is sent as its bytes, as a real client would), and, through
 * `sendBytes`, requests Node itself refuses to write (control characters in a header). Requests
 * share keep-alive connections, which makes thousands of them cheap.
 */
export interface RawRequest {
  method: string;
  path: string;
  headers: Array<[string, string]>;
  body?: string | Buffer;
}

export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  text: string;
  /** The parsed body when it is JSON, else undefined. */
  json: any;
}

export interface RawClient {
  send(request: RawRequest): Promise<RawResponse>;
  /** Writes the bytes on a new connection and reads the answer (the request should say `Connection: close`). */
  sendBytes(bytes: Buffer): Promise<RawResponse>;
  close(): Promise<void>;
}

/** Starts listening on an ephemeral loopback port (supertest listens per request otherwise). */
export async function rawClient(t: TestApp): Promise<RawClient> {
  const server: http.Server = t.app.getHttpServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const agent = new http.Agent({ keepAlive: true, maxSockets: 4 });
  return {
    send: (request) => send(port, agent, request),
    sendBytes: (bytes) => sendBytes(port, bytes),
    close: async () => {
      agent.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Text as the bytes of its UTF-8 encoding, each byte one latin1 character: how Node writes header values. */
export function utf8Bytes(text: string): string {
  return Buffer.from(text, 'utf8').toString('latin1');
}

function send(port: number, agent: http.Agent, request: RawRequest): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    // With an array of headers Node adds no Host line of its own.
    const headers = ['Host', `127.0.0.1:${port}`, ...request.headers.flat()];
    // A body-less POST says so (Content-Length: 0), as curl and supertest do; Node would send an empty chunked body.
    if (request.method !== 'GET' && !request.headers.some(([name]) => name.toLowerCase() === 'content-length'))
      headers.push('Content-Length', String(request.body === undefined ? 0 : Buffer.byteLength(request.body)));
    const outgoing = http.request(
      { host: '127.0.0.1', port, method: request.method, path: request.path, headers, agent },
      (incoming) => {
        const chunks: Buffer[] = [];
        incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
        incoming.on('end', () =>
          resolve(response(incoming.statusCode ?? 0, incoming.headers, Buffer.concat(chunks).toString('utf8'))),
        );
        incoming.on('error', reject);
      },
    );
    outgoing.on('error', reject);
    outgoing.end(request.body);
  });
}

function response(status: number, headers: http.IncomingHttpHeaders, text: string): RawResponse {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return {
    status,
    headers: Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, [value].flat().join(', ')])),
    text,
    json,
  };
}

/** A minimal HTTP/1.1 reader: status line, header lines, a Content-Length or chunked body, or what comes until close. */
function sendBytes(port: number, bytes: Buffer): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => {
      const raw = Buffer.concat(chunks);
      const end = raw.indexOf('\r\n\r\n');
      if (end < 0) {
        reject(
          new Error(`connection closed without an HTTP answer (${raw.length} bytes): ${raw.toString('latin1').slice(0, 80)}`),
        );
        return;
      }
      const [statusLine, ...lines] = raw.subarray(0, end).toString('latin1').split('\r\n');
      const headers: Record<string, string> = {};
      for (const line of lines) {
        const colon = line.indexOf(':');
        headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
      }
      let body: Buffer = raw.subarray(end + 4);
      if (headers['content-length'] !== undefined) body = body.subarray(0, Number(headers['content-length']));
      else if (headers['transfer-encoding'] === 'chunked') body = unchunk(body);
      resolve(response(Number(statusLine.split(' ')[1]), headers, body.toString('utf8')));
    });
    socket.end(bytes);
  });
}

function unchunk(body: Buffer): Buffer {
  const parts: Buffer[] = [];
  for (let at = 0; at < body.length;) {
    const lineEnd = body.indexOf('\r\n', at);
    const size = parseInt(body.subarray(at, lineEnd).toString('latin1'), 16);
    if (!size) break;
    parts.push(body.subarray(lineEnd + 2, lineEnd + 2 + size));
    at = lineEnd + 2 + size + 2;
  }
  return Buffer.concat(parts);
}

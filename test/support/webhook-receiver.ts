import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import { AddressInfo, Socket } from 'node:net';
import { TransactionHost } from '@nestjs-cls/transactional';
import { newId } from '@app/shared-kernel';
import { WebhookDeliveries, WebhookEvent } from '@app/webhooks';
import { TestApp } from './test-app';

export interface ReceivedWebhook {
  path: string;
  headers: Record<string, string>;
  body: string;
  at: number;
}

/**
 * A real local HTTP receiver: `/ok…` answers 200, `/fail…` 500, `/redirect…` 302 to `/ok`,
 * `/hang…` never answers (until closed). Every request is recorded with its raw body.
 */
export class WebhookReceiver {
  readonly received: ReceivedWebhook[] = [];
  private readonly sockets = new Set<Socket>();
  private server?: Server;
  port = 0;

  async start(): Promise<this> {
    this.server = createServer((request: IncomingMessage, response: ServerResponse) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const path = request.url ?? '/';
        this.received.push({
          path,
          headers: Object.fromEntries(Object.entries(request.headers).map(([name, value]) => [name, String(value)])),
          body: Buffer.concat(chunks).toString('utf8'),
          at: Date.now(),
        });
        if (path.startsWith('/hang')) return;
        if (path.startsWith('/fail')) response.writeHead(500).end('nope');
        else if (path.startsWith('/redirect'))
          response.writeHead(302, { location: `http://127.0.0.1:${this.port}/ok-redirected` }).end();
        else response.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
      });
    });
    this.server.on('connection', (socket) => {
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.address() as AddressInfo).port;
    return this;
  }

  url(path: string): string {
    return `http://127.0.0.1:${this.port}${path}`;
  }

  on(path: string): ReceivedWebhook[] {
    return this.received.filter((request) => request.path === path);
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()) ?? resolve());
  }
}

/** An event of the contract's shape, as the events context will write it. */
export function sampleEvent(
  workspaceId: string,
  type: string,
  livemode = true,
  object: unknown = { id: newId(), object: 'customer' },
) {
  return {
    id: newId(),
    object: 'event',
    type,
    created_at: new Date().toISOString(),
    sequence: 1,
    workspace_id: workspaceId,
    livemode,
    data: { object },
    request: { id: `req_${newId()}`, idempotency_key: 'test-key' },
  } satisfies WebhookEvent;
}

/** Queues an event's deliveries the way the events context does: inside the transaction that writes it. */
export async function enqueue(t: TestApp, event: WebhookEvent, organizationId: string): Promise<number> {
  const deliveries = t.app.get(WebhookDeliveries);
  return t.app.get(TransactionHost).withTransaction(() => deliveries.enqueueForEvent(event, { organizationId }));
}

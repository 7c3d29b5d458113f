import { request as httpRequest, IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP } from 'node:net';
import { Injectable } from '@nestjs/common';
import { WebhookPost, WebhookSender, WebhookSendError } from '../application/delivery-ports';

/**
 * POSTs one webhook. The connection is made to the checked address (a custom `lookup` answers
 * it), so a DNS answer that changes between the check and the connection (rebinding) is never
 * used; TLS still verifies the certificate against the URL's host name. Redirects are not
 * followed (Node's client never does): a 3xx is an answer like any other non-2xx. The whole
 * exchange, connection included, must produce response headers within the timeout; the body
 * of the answer is not read.
 */
@Injectable()
export class NodeHttpWebhookSender extends WebhookSender {
  post(post: WebhookPost): Promise<number> {
    const family = isIP(post.address);
    const send = post.url.protocol === 'https:' ? httpsRequest : httpRequest;
    return new Promise<number>((resolve, reject) => {
      let settled = false;
      const finish = (outcome: () => void) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        post.signal?.removeEventListener('abort', onAbort);
        outcome();
      };
      const request = send(
        post.url,
        {
          method: 'POST',
          agent: false,
          headers: { ...post.headers, 'content-length': String(Buffer.byteLength(post.body)) },
          lookup: (_hostname, options, callback) => {
            if ((options as { all?: boolean }).all) {
              (callback as (error: null, addresses: Array<{ address: string; family: number }>) => void)(null, [
                { address: post.address, family },
              ]);
            } else {
              callback(null, post.address, family);
            }
          },
        },
        (response: IncomingMessage) => {
          finish(() => resolve(response.statusCode ?? 0));
          response.destroy();
        },
      );
      const timer = setTimeout(() => {
        finish(() => reject(new WebhookSendError(`No response within ${post.timeoutMs / 1000} s.`, 'timeout')));
        request.destroy();
      }, post.timeoutMs);
      const onAbort = () => {
        finish(() => reject(new WebhookSendError('The attempt was interrupted.', 'aborted')));
        request.destroy();
      };
      post.signal?.addEventListener('abort', onAbort);
      request.on('error', (error: NodeJS.ErrnoException) => {
        finish(() => reject(new WebhookSendError(`Connection failed: ${error.code ?? error.message}.`, 'connection')));
      });
      request.end(post.body);
    });
  }
}

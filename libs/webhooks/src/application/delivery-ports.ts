/**
 * What delivering needs from the outside world, as ports the module binds to their adapters in
 * infrastructure/ (the abstract classes are the DI tokens).
 */

export interface WebhookPost {
  url: URL;
  /** The address the host resolved to and that was checked: the connection goes there and nowhere else. */
  address: string;
  body: string;
  headers: Record<string, string>;
  timeoutMs: number;
  /** Aborts the request (server shutdown). */
  signal?: AbortSignal;
}

export class WebhookSendError extends Error {
  constructor(
    message: string,
    readonly reason: 'timeout' | 'connection' | 'aborted',
  ) {
    super(message);
  }
}

/** POSTs one webhook to the checked address; resolves with the answer's status. */
export abstract class WebhookSender {
  abstract post(post: WebhookPost): Promise<number>;
}

/** Every address a webhook URL's host resolves to (an IP literal is its own address). */
export abstract class HostResolver {
  abstract resolve(host: string): Promise<string[]>;
}

import { Injectable } from '@nestjs/common';
import { PlatformOptions } from '@app/shared-kernel';
import { assertAddressesAllowed, hostOf, parseWebhookUrl, UrlPolicy } from '../domain/url-safety';
import { HostResolver } from './delivery-ports';

export interface CheckedUrl {
  url: URL;
  /** Every address the host resolved to, each allowed. */
  addresses: string[];
}

/** Checks a webhook URL and the addresses its host resolves to now: at create, update and every attempt. */
@Injectable()
export class WebhookUrlGuard {
  readonly policy: UrlPolicy;

  constructor(
    options: PlatformOptions,
    private readonly resolver: HostResolver,
  ) {
    this.policy = { production: options.environment === 'production' };
  }

  /** The URL's syntax and scheme only (no resolution). */
  parse(value: unknown): URL {
    return parseWebhookUrl(value, this.policy);
  }

  async check(value: unknown): Promise<CheckedUrl> {
    const url = this.parse(value);
    const host = hostOf(url);
    const addresses = await this.resolver.resolve(host);
    assertAddressesAllowed(host, addresses, this.policy);
    return { url, addresses };
  }
}

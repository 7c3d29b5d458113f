import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { Injectable } from '@nestjs/common';
import { HostResolver } from '../application/delivery-ports';
import { urlNotAllowed } from '../domain/url-safety';

const RESOLVE_TIMEOUT_MS = 5_000;

/**
 * Resolves a webhook URL's host to the addresses the system resolver gives (getaddrinfo: hosts
 * file, then DNS), every one of them, so each can be checked and the request sent to one of those
 * checked addresses only. An IP literal is its own address.
 */
@Injectable()
export class SystemHostResolver extends HostResolver {
  async resolve(host: string): Promise<string[]> {
    if (isIP(host) !== 0) return [host];
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(urlNotAllowed(`${host} did not resolve within ${RESOLVE_TIMEOUT_MS / 1000} s.`)),
        RESOLVE_TIMEOUT_MS,
      );
    });
    try {
      const found = await Promise.race([lookup(host, { all: true, verbatim: true }), timeout]);
      return found.map((entry) => entry.address);
    } catch (error) {
      if ((error as { code?: string }).code === 'WEBHOOK_URL_NOT_ALLOWED') throw error;
      throw urlNotAllowed(`${host} does not resolve (${(error as { code?: string }).code ?? 'lookup failed'}).`);
    } finally {
      clearTimeout(timer);
    }
  }
}

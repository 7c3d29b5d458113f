import { Injectable } from '@nestjs/common';
import { TransactionalNotifier } from '@app/shared-kernel';
import { CredentialCache } from './credential-cache';
import { changeOf, IDENTITY_CHANGES_CHANNEL } from './identity-changes';

/**
 * The one way a change to what a credential grants (an API key's scopes, addresses, revocation,
 * rotation; a session's end) is made known: called inside the changing transaction, it evicts the
 * credential from this instance's cache at once (and keeps it uncached until the change's NOTIFY
 * arrives: see `CredentialCache.forget`) and queues `NOTIFY identity_changes`, which PostgreSQL
 * delivers to every instance only if the transaction commits. Every write that changes a key or a
 * session goes through here; none spells out the two steps itself.
 */
@Injectable()
export class CredentialChanges {
  constructor(
    private readonly notifier: TransactionalNotifier,
    private readonly credentials: CredentialCache,
  ) {}

  async apiKeyChanged(apiKeyId: string): Promise<void> {
    await this.changed(apiKeyId, changeOf.apiKey(apiKeyId));
  }

  async sessionChanged(sessionId: string): Promise<void> {
    await this.changed(sessionId, changeOf.session(sessionId));
  }

  private async changed(id: string, payload: string): Promise<void> {
    // The NOTIFY first: outside a transaction it throws, before anything was evicted for nothing.
    await this.notifier.notify(IDENTITY_CHANGES_CHANNEL, payload);
    this.credentials.forget(id);
  }
}

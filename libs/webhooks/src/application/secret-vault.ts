import { Injectable } from '@nestjs/common';
import { PlatformOptions, ResponseVault } from '@app/shared-kernel';

/**
 * Endpoint signing secrets at rest: AES-256-GCM under a key derived from APP_SECRET for this
 * purpose alone (the vault that seals stored idempotent responses, with its own key).
 */
@Injectable()
export class WebhookSecretVault {
  private readonly vault: ResponseVault;

  constructor(options: PlatformOptions) {
    this.vault = new ResponseVault(options.appSecret, 'webhook-endpoint-secrets');
  }

  seal(secret: string): string {
    return this.vault.seal(secret);
  }

  open(sealed: string): string {
    return this.vault.open(sealed);
  }
}

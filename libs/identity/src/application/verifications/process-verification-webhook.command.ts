import { Command } from '@nestjs/cqrs';

/** A provider's signed report; a duplicate delivery changes nothing, an older one never moves the record back. */
export class ProcessVerificationWebhookCommand extends Command<{ duplicate: boolean }> {
  constructor(
    readonly provider: string,
    readonly rawBody: string,
    readonly signature: string | undefined,
  ) {
    super();
  }
}

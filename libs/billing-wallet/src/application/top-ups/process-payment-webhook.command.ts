import { Command } from '@nestjs/cqrs';

/** A provider's signed report; a duplicate delivery changes nothing. */
export class ProcessPaymentWebhookCommand extends Command<{ duplicate: boolean }> {
  constructor(
    readonly provider: string,
    readonly rawBody: string,
    readonly signature: string | undefined,
  ) {
    super();
  }
}

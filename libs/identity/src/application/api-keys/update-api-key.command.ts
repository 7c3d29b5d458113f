import { Command } from '@nestjs/cqrs';
import { Actor } from '@app/shared-kernel';
import { ApiKeyView } from './api-key.view';

/** A merge-patch of a key: absent or null leaves a field as it is. */
export interface UpdateApiKeyInput {
  name?: unknown;
  scopes?: unknown;
  allowedIps?: unknown;
}

export class UpdateApiKeyCommand extends Command<ApiKeyView> {
  constructor(
    readonly actor: Actor,
    readonly apiKeyId: string,
    readonly input: UpdateApiKeyInput,
  ) {
    super();
  }
}

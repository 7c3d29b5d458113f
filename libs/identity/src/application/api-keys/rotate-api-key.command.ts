import { Command } from '@nestjs/cqrs';
import { Actor } from '@app/shared-kernel';
import { ApiKeyView } from './api-key.view';

export class RotateApiKeyCommand extends Command<{ key: ApiKeyView; secret: string; rotatedFrom: ApiKeyView }> {
  constructor(
    readonly actor: Actor,
    readonly apiKeyId: string,
  ) {
    super();
  }
}

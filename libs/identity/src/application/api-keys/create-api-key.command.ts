import { Command } from '@nestjs/cqrs';
import { Actor } from '@app/shared-kernel';
import { ApiKeyView } from './api-key.view';

export interface CreateApiKeyInput {
  name: unknown;
  scopes: unknown;
  allowedIps?: unknown;
  expiresAt?: Date | null;
  keyType?: 'sk_live' | 'sk_test';
}

export class CreateApiKeyCommand extends Command<{ key: ApiKeyView; secret: string }> {
  constructor(
    readonly actor: Actor,
    readonly input: CreateApiKeyInput,
  ) {
    super();
  }
}

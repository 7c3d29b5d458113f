import { RevokeApiKeyHandler } from './revoke-api-key.handler';
import { RotateApiKeyHandler } from './rotate-api-key.handler';
import { RotationCompleter } from './rotation-completer';
import { CreateApiKeyHandler } from './create-api-key.handler';
import { ListApiKeysHandler } from './list-api-keys.handler';
import { UpdateApiKeyHandler } from './update-api-key.handler';

export const ApiKeyLifecycleHandlers = [
  CreateApiKeyHandler,
  RotateApiKeyHandler,
  RevokeApiKeyHandler,
  UpdateApiKeyHandler,
  RotationCompleter,
  ListApiKeysHandler,
];

import { RevokeApiKeyHandler, RotateApiKeyHandler, RotationCompleter } from './api-key-lifecycle.handlers';
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

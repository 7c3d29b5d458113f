import { CancelChangeHandler } from './cancel-change.handler';
import { CreateChangeHandler } from './create-change.handler';
import { GetChangeHandler } from './get-change.handler';

/** The handlers of the changes use cases (commands, then queries), registered by CatalogModule. */
export const ChangeHandlers = [CancelChangeHandler, CreateChangeHandler, GetChangeHandler];

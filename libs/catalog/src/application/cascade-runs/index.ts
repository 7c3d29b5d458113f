import { GetCascadeRunHandler } from './get-cascade-run.handler';
import { ListCascadeTasksHandler } from './list-cascade-tasks.handler';

/** The handlers of the cascade-runs use cases (commands, then queries), registered by CatalogModule. */
export const CascadeRunHandlers = [GetCascadeRunHandler, ListCascadeTasksHandler];

import { ApiKey } from './api-key';
import { Workspace } from './workspace';

/** Repository ports: abstract classes that are also the DI tokens of their adapters. */
export abstract class ApiKeyRepository {
  abstract findForUpdate(organizationId: string, id: string): Promise<ApiKey | undefined>;
  abstract insert(key: ApiKey): Promise<void>;
  abstract save(key: ApiKey): Promise<void>;
}

export abstract class WorkspaceRepository {
  abstract findForUpdate(organizationId: string, id: string): Promise<Workspace | undefined>;
  abstract insert(workspace: Workspace): Promise<void>;
  abstract save(workspace: Workspace): Promise<void>;
}

export interface OrganizationRecord {
  id: string;
  name: string;
  createdAt: Date;
}

export abstract class OrganizationRepository {
  abstract insert(organization: OrganizationRecord): Promise<void>;
  abstract count(): Promise<number>;
}

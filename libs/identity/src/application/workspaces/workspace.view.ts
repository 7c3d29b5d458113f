import { Workspace, WorkspaceMode, WorkspaceSettings } from '../../domain/workspace';

export interface WorkspaceView {
  id: string;
  name: string;
  slug: string;
  mode: WorkspaceMode;
  isDefault: boolean;
  settings: WorkspaceSettings;
  createdAt: Date;
  updatedAt: Date;
}

export function toWorkspaceView(workspace: Workspace): WorkspaceView {
  const s = workspace.snapshot;
  return {
    id: s.id,
    name: s.name,
    slug: s.slug,
    mode: s.mode,
    isDefault: s.isDefault,
    settings: s.settings,
    createdAt: s.createdAt,
    updatedAt: s.updatedAt,
  };
}

/** The NOTIFY channel on which committed credential and workspace changes reach every instance. */
export const IDENTITY_CHANGES_CHANNEL = 'identity_changes';

export const changeOf = {
  apiKey: (id: string) => `api_key:${id}`,
  session: (id: string) => `session:${id}`,
  workspaces: (organizationId: string) => `workspaces:${organizationId}`,
};

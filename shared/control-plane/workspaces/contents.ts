/**
 * What makes a workspace non-empty. Each resource that lives in workspaces registers a probe here (API keys
 * and members do below; virtual keys, prompts, policies … register theirs), so deleting a workspace without
 * `force` can say exactly what is still in it.
 */
export type WorkspaceContentProbe = (workspaceId: string) => Promise<boolean>;

const probes = new Map<string, WorkspaceContentProbe>();

export function registerWorkspaceContentProbe(resource: string, probe: WorkspaceContentProbe): void {
  probes.set(resource, probe);
}

/** The resources that still have something in the workspace, e.g. `['api_keys', 'members']`. */
export async function nonEmptyResources(workspaceId: string): Promise<string[]> {
  const found: string[] = [];
  for (const [resource, probe] of probes) {
    if (await probe(workspaceId)) found.push(resource);
  }
  return found;
}

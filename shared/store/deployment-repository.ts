import { organisationOwner, SluggedRecordRepository } from './slugged-record-repository.js';
import type { ConfigSecretRef } from './config-secrets.js';

export type DeploymentType = 'production' | 'non-production';

/** The config a deployment runs: an inline config object, or a saved config (latest or a pinned version). */
export type DeploymentConfig = { kind: 'inline'; inline: Record<string, unknown>; secret_ref?: ConfigSecretRef } | { kind: 'saved'; id: string; version?: number };

/**
 * A deployment: a named, slugged config of the organisation that gateway requests select with
 * `x-gw-deployment: <slug>`. `workspace_id` is the workspace it is assigned to (null: organisation-wide); a saved
 * config is read from `config_workspace_id`. `restricted_to_workspaces` (ids) narrows who may use it.
 */
export interface DeploymentRecord {
  id: string;
  organisation_id: string;
  workspace_id: string | null;
  config_workspace_id: string;
  name: string;
  slug: string;
  description?: string;
  type: DeploymentType;
  config: DeploymentConfig;
  restricted_to_workspaces: string[];
  created_by: string;
  created_at: string;
  updated_at: string;
}

/** Deployments live in their organisation's records (slug unique per organisation). */
export class DeploymentRepository {
  private readonly records = new SluggedRecordRepository<DeploymentRecord>('DEPLOYMENT');

  create(record: DeploymentRecord) {
    return this.records.create(organisationOwner(record.organisation_id), record);
  }
  get(organisationId: string, id: string) {
    return this.records.get(organisationOwner(organisationId), id);
  }
  getBySlug(organisationId: string, slug: string) {
    return this.records.getBySlug(organisationOwner(organisationId), slug);
  }
  list(organisationId: string, limit: number, startKey?: Record<string, unknown>, keep?: (record: DeploymentRecord) => boolean) {
    return this.records.list(organisationOwner(organisationId), limit, startKey, keep);
  }
  replace(previous: DeploymentRecord, next: DeploymentRecord) {
    return this.records.replace(organisationOwner(previous.organisation_id), previous, next);
  }
  delete(organisationId: string, id: string) {
    return this.records.delete(organisationOwner(organisationId), id);
  }
}

/** Whether a workspace may run the deployment: restricted ones only in the listed workspaces; assigned ones in theirs. */
export function deploymentUsableBy(record: DeploymentRecord, workspaceId: string): boolean {
  if (record.restricted_to_workspaces.length > 0) return record.restricted_to_workspaces.includes(workspaceId);
  return record.workspace_id === null || record.workspace_id === workspaceId;
}

import { forgetResolvedDeployment } from '../../gateway/deployment-target.js';
import { randomUUID } from 'node:crypto';
import type { Principal } from '../../auth/principal.js';
import { GatewayError } from '../../http/errors.js';
import { DeploymentRepository, deploymentUsableBy, type DeploymentRecord } from '../../store/deployment-repository.js';
import { toPage, type Page, type PageRequest } from '../pagination.js';
import type { CrudService, ResourceScope } from '../resource/define-resource.js';
import { findVisibleRecord, notFoundByIdOrSlug, visibleToCaller } from '../resource/organisation-records.js';
import { slugOf, withSlugConflict } from '../resource/slugs.js';
import { findVisibleWorkspace, visibleWorkspaceIds } from '../workspaces/access.js';
import { checkedDeploymentConfig, maskedConfig } from './config-check.js';
import { forgetDeploymentSecret, sealDeploymentConfig } from './deployment-secrets.js';
import type { DeploymentCreate, DeploymentUpdate, DeploymentView } from './schemas.js';

/**
 * Deployments belong to the organisation. An admin key manages all of them; a workspace key reads the ones its
 * workspace may use and manages the ones assigned to its workspace. Anything else is a 404.
 */
export class DeploymentService implements CrudService<DeploymentRecord, DeploymentCreate, DeploymentUpdate, DeploymentFilter> {
  constructor(private readonly repository = new DeploymentRepository()) {}

  async create({ principal }: ResourceScope, body: DeploymentCreate): Promise<DeploymentRecord> {
    const workspaceId = await this.assignedWorkspace(principal, body.workspace_id);
    const configWorkspaceId = workspaceId ?? principal.workspaceId;
    const now = new Date().toISOString();
    const id = randomUUID();
    const record: DeploymentRecord = {
      id,
      organisation_id: principal.organisationId,
      workspace_id: workspaceId,
      config_workspace_id: configWorkspaceId,
      name: body.name,
      slug: body.slug ?? slugOf(body.name, 'deployment'),
      type: body.type,
      config: await sealDeploymentConfig(await checkedDeploymentConfig(body.config, configWorkspaceId), { organisationId: principal.organisationId, deploymentId: id }),
      restricted_to_workspaces: await this.workspaceIds(principal, body.restricted_to_workspaces ?? []),
      created_by: principal.keyId,
      created_at: now,
      updated_at: now,
    };
    if (body.description !== undefined) record.description = body.description;
    try {
      await withSlugConflict(record.slug, () => this.repository.create(record), slugTaken);
    } catch (error) {
      await forgetDeploymentSecret(record.config);
      throw error;
    }
    return record;
  }

  get({ principal }: ResourceScope, idOrSlug: string): Promise<DeploymentRecord> {
    return findVisibleRecord(principal, idOrSlug, { repository: this.repository, noun: 'deployment', usableBy: usableByWorkspace });
  }

  async list({ principal }: ResourceScope, page: PageRequest, filter: DeploymentFilter): Promise<Page<DeploymentView>> {
    const workspaceId = filter.workspace_id === undefined ? undefined : (await findVisibleWorkspace(principal, filter.workspace_id)).id;
    const keep = (record: DeploymentRecord) =>
      visibleToCaller(principal, record, (callerWorkspace) => usableByWorkspace(record, callerWorkspace)) && (filter.type === undefined || record.type === filter.type) && (workspaceId === undefined || record.workspace_id === workspaceId);
    const result = await this.repository.list(principal.organisationId, page.limit, page.startKey, keep);
    return toPage(result.items.map(presentDeployment), result.nextKey);
  }

  async update({ principal }: ResourceScope, idOrSlug: string, body: DeploymentUpdate): Promise<DeploymentRecord> {
    const current = await this.managed(principal, idOrSlug);
    const workspaceId = body.workspace_id === undefined ? current.workspace_id : await this.assignedWorkspace(principal, body.workspace_id);
    const configWorkspaceId = workspaceId ?? current.config_workspace_id;
    const next: DeploymentRecord = {
      ...current,
      name: body.name ?? current.name,
      slug: body.slug ?? current.slug,
      type: body.type ?? current.type,
      workspace_id: workspaceId,
      config_workspace_id: configWorkspaceId,
      config:
        body.config !== undefined
          ? await sealDeploymentConfig(await checkedDeploymentConfig(body.config, configWorkspaceId), { organisationId: principal.organisationId, deploymentId: current.id }, current.config)
          : current.config,
      restricted_to_workspaces: body.restricted_to_workspaces ? await this.workspaceIds(principal, body.restricted_to_workspaces) : current.restricted_to_workspaces,
      updated_at: new Date().toISOString(),
    };
    if (body.description === null) delete next.description;
    else if (body.description !== undefined) next.description = body.description;
    // A saved reference must exist where the deployment now reads it from.
    if (body.config === undefined && workspaceId !== current.workspace_id && current.config.kind === 'saved') {
      await checkedDeploymentConfig({ id: current.config.id, ...(current.config.version ? { version: current.config.version } : {}) }, configWorkspaceId);
    }
    const replaced = await withSlugConflict(next.slug, () => this.repository.replace(current, next), slugTaken).catch(async (error: unknown) => {
      if (next.config !== current.config) await forgetDeploymentSecret(next.config);
      throw error;
    });
    if (!replaced) {
      if (next.config !== current.config) await forgetDeploymentSecret(next.config);
      throw notFoundByIdOrSlug('deployment', idOrSlug);
    }
    forgetResolvedDeployment(principal.organisationId);
    if (next.config !== current.config) await forgetDeploymentSecret(current.config);
    return next;
  }

  async delete({ principal }: ResourceScope, idOrSlug: string): Promise<DeploymentRecord> {
    const current = await this.managed(principal, idOrSlug);
    const deleted = await this.repository.delete(principal.organisationId, current.id);
    if (!deleted) throw notFoundByIdOrSlug('deployment', idOrSlug);
    forgetResolvedDeployment(principal.organisationId);
    await forgetDeploymentSecret(deleted.config);
    return deleted;
  }

  /** A deployment the caller may change: any of the organisation for an admin, its own workspace's for a workspace key. */
  private async managed(principal: Principal, idOrSlug: string): Promise<DeploymentRecord> {
    const record = await this.get({ principal, workspaceId: principal.workspaceId }, idOrSlug);
    if (principal.kind !== 'admin' && record.workspace_id !== principal.workspaceId) {
      throw new GatewayError(403, 'admin_required', 'This deployment is not assigned to your workspace; only an organisation admin key may change it');
    }
    return record;
  }

  /** `undefined` → the caller's workspace; null → organisation-wide (admin only); else a visible workspace's id. */
  private async assignedWorkspace(principal: Principal, requested: string | null | undefined): Promise<string | null> {
    if (requested === undefined) return principal.workspaceId;
    if (requested === null) {
      if (principal.kind !== 'admin') throw new GatewayError(403, 'admin_required', 'Organisation-wide deployments (workspace_id: null) need an organisation admin key');
      return null;
    }
    return (await findVisibleWorkspace(principal, requested)).id;
  }

  private workspaceIds(principal: Principal, requested: string[]): Promise<string[]> {
    return visibleWorkspaceIds(principal, requested, 'restricted_to_workspaces');
  }

}

/** The list filter (`?type=`, `?workspace_id=`), validated by the definition's listFilter. */
export interface DeploymentFilter {
  type?: string;
  workspace_id?: string;
}

/** A workspace key sees the deployments assigned to its workspace and the ones it may use. */
function usableByWorkspace(record: DeploymentRecord, workspaceId: string): boolean {
  return record.workspace_id === workspaceId || deploymentUsableBy(record, workspaceId);
}

const slugTaken = (slug: string) => `slug: a deployment with slug '${slug}' already exists in this organisation`;

export function presentDeployment(record: DeploymentRecord): DeploymentView {
  const view: DeploymentView = {
    object: 'deployment',
    id: record.id,
    name: record.name,
    slug: record.slug,
    type: record.type,
    config: record.config.kind === 'inline' ? (maskedConfig(record.config.inline) as Record<string, unknown>) : { id: record.config.id, ...(record.config.version ? { version: record.config.version } : {}) },
    workspace_id: record.workspace_id,
    restricted_to_workspaces: record.restricted_to_workspaces,
    created_at: record.created_at,
    updated_at: record.updated_at,
  };
  if (record.description !== undefined) view.description = record.description;
  return view;
}

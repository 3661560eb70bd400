import { randomBytes, randomUUID } from 'node:crypto';
import { badRequest, GatewayError } from '../../http/errors.js';
import { ApiKeyRepository } from '../../store/api-key-repository.js';
import { UserRepository } from '../../store/user-repository.js';
import { SlugTakenError, WorkspaceRepository, type WorkspaceChanges, type WorkspaceRecord } from '../../store/workspace-repository.js';
import { revokeWorkspaceKeys } from '../api-keys/bulk-revoke.js';
import type { Principal } from '../../auth/principal.js';
import { toPage, type Page, type PageRequest } from '../pagination.js';
import { requireOrganisationAdminSetting, requireWorkspaceAdminSetting } from '../privilege.js';
import { usageViewerFor } from '../analytics/visibility.js';
import type { CrudService, ResourceScope } from '../resource/define-resource.js';
import { checkDefaultGuardrailsChange, defaultGuardrailsChanged } from '../guardrails/workspace-defaults.js';
import { findVisibleWorkspace } from './access.js';
import { nextBudgetReset } from './budget.js';
import { nonEmptyResources, registerWorkspaceContentProbe } from './contents.js';
import { presentWorkspace } from './present.js';
import type { WorkspaceCreate, WorkspaceUpdate } from './schemas.js';

registerWorkspaceContentProbe('api_keys', async (workspaceId) => (await new ApiKeyRepository().listOfWorkspace(workspaceId, { status: 'active' }, 1)).items.length > 0);
registerWorkspaceContentProbe('members', (workspaceId) => new UserRepository().hasMembers(workspaceId));

/** What deleting a workspace did: the keys it revoked and what it held (`force` empties a non-empty one). */
export interface WorkspaceDeletion {
  workspace: WorkspaceRecord;
  force: boolean;
  contents: string[];
  revoked: string[];
}

/**
 * The workspace use cases (workspaces/resource.ts routes them). An admin key sees every workspace of its
 * organisation, a workspace key (or token) only its own (access.ts).
 */
export class WorkspaceService implements CrudService<WorkspaceRecord, WorkspaceCreate, WorkspaceUpdate, undefined> {
  async create({ principal }: ResourceScope, body: WorkspaceCreate): Promise<WorkspaceRecord> {
    const now = new Date();
    const reset = body.budget?.periodic_reset ?? 'none';
    const record: WorkspaceRecord = {
      id: randomUUID(),
      organisation_id: principal.organisationId,
      name: body.name,
      slug: body.slug ?? slugOf(body.name),
      description: body.description,
      metadata: body.metadata,
      created_at: now.toISOString(),
      budget_credit_limit: body.budget?.credit_limit ?? null,
      budget_periodic_reset: reset,
      budget_current_usage: 0,
      budget_status: 'active',
      budget_last_reset_at: null,
      budget_next_reset_at: nextBudgetReset(reset, now),
      max_api_keys: body.api_key_settings?.max_api_keys ?? null,
      api_key_default_expiry_days: body.api_key_settings?.default_expiry_days ?? null,
      api_key_max_expiry_days: body.api_key_settings?.max_expiry_days ?? null,
    };
    return createWithFreeSlug(record, body.slug !== undefined);
  }

  async list({ principal }: ResourceScope, page: PageRequest): Promise<Page<unknown>> {
    if (principal.kind !== 'admin') {
      const own = await findVisibleWorkspace(principal, principal.workspaceId);
      return toPage(page.startKey ? [] : [presentWorkspace(await withVisibleUsage(principal, own))], undefined);
    }
    const result = await new WorkspaceRepository().listWorkspaces(principal.organisationId, page.limit, page.startKey);
    return toPage(result.items.map(presentWorkspace), result.nextKey);
  }

  async get({ principal }: ResourceScope, idOrSlug: string): Promise<WorkspaceRecord> {
    return withVisibleUsage(principal, await findVisibleWorkspace(principal, idOrSlug));
  }

  /** Name, description, metadata, API-key settings and budget (credit limit, periodic reset). */
  async update({ principal }: ResourceScope, idOrSlug: string, body: WorkspaceUpdate): Promise<WorkspaceRecord> {
    const workspaces = new WorkspaceRepository();
    const workspace = await findVisibleWorkspace(principal, idOrSlug, workspaces);
    // A workspace key must not lift the limits its organisation's admins set on it.
    requireOrganisationAdminSetting(principal, organisationAdminFields(body));
    await requireWorkspaceAdminSetting(principal, workspace.id, workspaceAdminFields(body));
    const now = new Date();
    const changes = workspaceChanges(workspace, body, now);
    if (body.default_guardrails !== undefined) changes.default_guardrails = await checkDefaultGuardrailsChange(principal, workspace.id, body.default_guardrails);
    let updated: WorkspaceRecord | undefined = workspace;
    if (Object.keys(changes).length > 0) updated = await workspaces.updateWorkspace(workspace.id, changes, now.toISOString());
    if (updated && body.budget?.credit_limit !== undefined) updated = await workspaces.setCreditLimit(workspace.id, body.budget.credit_limit, now.toISOString());
    if (!updated) throw new GatewayError(404, 'not_found', `No workspace with id or slug '${idOrSlug}'`);
    if (body.default_guardrails !== undefined) defaultGuardrailsChanged(workspace.id);
    return withVisibleUsage(principal, updated);
  }

  /** Deletes an empty workspace (see remove). */
  async delete(at: ResourceScope, idOrSlug: string): Promise<WorkspaceRecord> {
    return (await this.remove(at.principal, idOrSlug, false)).workspace;
  }

  /**
   * Deletes an empty workspace; with `force` a non-empty one, after revoking its keys and removing its members.
   * The home workspace of active admin keys is never deleted: those keys would point nowhere.
   */
  async remove(principal: Principal, idOrSlug: string, force: boolean): Promise<WorkspaceDeletion> {
    const workspaces = new WorkspaceRepository();
    const workspace = await findVisibleWorkspace(principal, idOrSlug, workspaces);
    const adminKeys = await new ApiKeyRepository().listAdminKeys(workspace.organisation_id, { status: 'active', workspace_id: workspace.id }, 1);
    if (workspace.id === principal.workspaceId || adminKeys.items.length > 0) {
      throw new GatewayError(409, 'workspace_in_use', 'This workspace is the home workspace of active organisation admin keys (including, perhaps, yours) and cannot be deleted');
    }
    const contents = await nonEmptyResources(workspace.id);
    if (contents.length > 0 && !force) {
      throw new GatewayError(409, 'workspace_not_empty', `The workspace still holds ${contents.join(', ')}; remove them first or delete with ?force=true`);
    }
    const revoked = force ? await emptyWorkspace(workspace) : [];
    await workspaces.deleteWorkspace(workspace);
    return { workspace, force, contents, revoked };
  }
}

/** An explicit slug that is taken is the caller's conflict; a derived one gets a random suffix instead. */
async function createWithFreeSlug(record: WorkspaceRecord, explicitSlug: boolean): Promise<WorkspaceRecord> {
  const workspaces = new WorkspaceRepository();
  try {
    return await workspaces.createWorkspace(record);
  } catch (error) {
    if (!(error instanceof SlugTakenError)) throw error;
    if (explicitSlug) throw new GatewayError(409, 'slug_taken', `slug: '${record.slug}' is already used by another workspace of this organisation`, { param: 'slug' });
    return workspaces.createWorkspace({ ...record, slug: `${record.slug.slice(0, 57)}-${randomBytes(3).toString('hex')}` });
  }
}

function slugOf(name: string): string {
  const slug = name
    .toLowerCase()
    .normalize('NFKD')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 64)
    .replace(/-+$/, '');
  return slug || 'workspace';
}

/**
 * The visibility settings of an update: only organisation admins and workspace admins may set them. Besides who may
 * see usage, `log_request_bodies` decides whether every caller's prompts and answers are kept where any `logs:read`
 * key of the workspace reads them: a member turning it on would read its colleagues' prompts from then on.
 */
function workspaceAdminFields(body: WorkspaceUpdate): string[] {
  return (['membersViewAnalytics', 'managersViewAnalytics', 'log_request_bodies'] as const).filter((field) => body.settings?.[field] !== undefined);
}

/** The workspace as the caller may see it: its budget usage hidden like other usage (analytics/visibility.ts). */
async function withVisibleUsage(principal: Principal, record: WorkspaceRecord): Promise<WorkspaceRecord> {
  return (await usageViewerFor(principal, record.id)).seesUsage ? record : { ...record, usage_hidden: true };
}

/** The fields of an update that only an organisation admin may set. */
function organisationAdminFields(body: WorkspaceUpdate): string[] {
  return (['budget', 'api_key_settings'] as const).filter((field) => body[field] !== undefined);
}

function workspaceChanges(workspace: WorkspaceRecord, body: WorkspaceUpdate, now: Date): WorkspaceChanges {
  const changes: WorkspaceChanges = {};
  if (body.name !== undefined) changes.name = body.name;
  if (body.description !== undefined) changes.description = body.description;
  if (body.metadata !== undefined) changes.metadata = body.metadata;
  if (body.settings !== undefined) changes.settings = { ...workspace.settings, ...body.settings };
  const settings = body.api_key_settings;
  if (settings) {
    if (settings.max_api_keys !== undefined) changes.max_api_keys = settings.max_api_keys;
    if (settings.default_expiry_days !== undefined) changes.api_key_default_expiry_days = settings.default_expiry_days;
    if (settings.max_expiry_days !== undefined) changes.api_key_max_expiry_days = settings.max_expiry_days;
    const defaultDays = changes.api_key_default_expiry_days !== undefined ? changes.api_key_default_expiry_days : workspace.api_key_default_expiry_days;
    const maxDays = changes.api_key_max_expiry_days !== undefined ? changes.api_key_max_expiry_days : workspace.api_key_max_expiry_days;
    if (defaultDays != null && maxDays != null && defaultDays > maxDays) {
      throw badRequest('invalid_request', `api_key_settings.default_expiry_days: must not exceed max_expiry_days (${maxDays})`, 'api_key_settings.default_expiry_days');
    }
  }
  const reset = body.budget?.periodic_reset;
  if (reset !== undefined && reset !== workspace.budget_periodic_reset) {
    changes.budget_periodic_reset = reset;
    changes.budget_next_reset_at = nextBudgetReset(reset, now);
  }
  return changes;
}

async function emptyWorkspace(workspace: WorkspaceRecord): Promise<string[]> {
  const revoked = await revokeWorkspaceKeys(workspace.id);
  const users = new UserRepository();
  const now = new Date().toISOString();
  for (const membership of await users.membersOf(workspace.id)) {
    const user = await users.get(workspace.organisation_id, membership.user_id);
    if (user) await users.removeMembership(user, workspace.id, now);
  }
  return revoked;
}

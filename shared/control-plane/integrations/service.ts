import { randomUUID } from 'node:crypto';
import type { Principal } from '../../auth/principal.js';
import { forgetResolvedProviders } from '../../gateway/provider-target.js';
import { logger } from '../../observability/logger.js';
import {
  deleteIntegrationSecret,
  integrationRepository,
  integrationSharedWith,
  writeIntegrationSecret,
  type IntegrationRecord,
} from '../../store/integration-repository.js';
import { secretStore } from '../../store/secrets/secret-store-factory.js';
import type { SecretStore } from '../../store/secrets/secret-store.js';
import { toPage, type Page, type PageRequest } from '../pagination.js';
import type { CrudService, ResourceScope } from '../resource/define-resource.js';
import { findByIdOrSlug, findVisibleRecord, notFoundByIdOrSlug, visibleToCaller } from '../resource/organisation-records.js';
import { slugOf, withSlugConflict } from '../resource/slugs.js';
import { canonicalProvider, checkedCustomHost } from '../virtual-keys/virtual-key-rules.js';
import { visibleWorkspaceIds } from '../workspaces/access.js';
import { refuseGatewayKeyCredentials } from '../gateway-key-credential.js';
import { applyBatchSettings, batchSettingsView } from './batch-settings.js';
import type { IntegrationCreate, IntegrationUpdate, IntegrationView } from './schemas.js';
import { hasTags, readTagFilter } from './tags.js';

/**
 * Integrations: organisation-level provider credentials. Admin keys manage them; a workspace key may read the
 * ones shared with its workspace. The credential only flows inward (body → secret store).
 */
export class IntegrationService implements CrudService<IntegrationRecord, IntegrationCreate, IntegrationUpdate, IntegrationFilter> {
  constructor(
    private readonly repository = integrationRepository(),
    private readonly secrets: () => SecretStore = secretStore,
  ) {}

  async create({ principal }: ResourceScope, body: IntegrationCreate): Promise<IntegrationRecord> {
    await refuseGatewayKeyCredentials([{ param: 'credential', value: body.credential }]);
    const now = new Date().toISOString();
    const record: IntegrationRecord = {
      id: randomUUID(),
      organisation_id: principal.organisationId,
      name: body.name,
      slug: body.slug ?? slugOf(body.name, 'integration'),
      provider: canonicalProvider(body.provider),
      tags: body.tags ?? {},
      shared_with_workspaces: await this.sharedWith(principal, body.shared_with_workspaces ?? []),
      credential_masked: body.credential === undefined ? null : masked(body.credential),
      created_at: now,
      updated_at: now,
    };
    if (body.custom_host !== undefined) record.custom_host = checkedCustomHost(body.custom_host);
    if (body.allowed_custom_hosts?.length) record.allowed_custom_hosts = body.allowed_custom_hosts;
    if (body.description !== undefined) record.description = body.description;
    applyBatchSettings(record, body);
    // The secret first: a record without its secret would be an integration that fails at request time.
    if (body.credential !== undefined) await writeIntegrationSecret(this.secrets(), principal.organisationId, record.id, { api_key: body.credential });
    try {
      await withSlugConflict(record.slug, () => this.repository.create(record));
    } catch (error) {
      await this.forgetSecret(record);
      throw error;
    }
    return record;
  }

  get({ principal }: ResourceScope, idOrSlug: string): Promise<IntegrationRecord> {
    return findVisibleRecord(principal, idOrSlug, { repository: this.repository, noun: 'integration', usableBy: integrationSharedWith });
  }

  async list({ principal }: ResourceScope, page: PageRequest, query: IntegrationFilter): Promise<Page<IntegrationView>> {
    const tags = readTagFilter(query.tags);
    const provider = query.provider === undefined ? undefined : canonicalProvider(query.provider);
    const keep = (record: IntegrationRecord) =>
      visibleToCaller(principal, record, (workspaceId) => integrationSharedWith(record, workspaceId)) && hasTags(record.tags, tags) && (provider === undefined || record.provider === provider);
    const result = await this.repository.list(principal.organisationId, page.limit, page.startKey, keep);
    return toPage(result.items.map(presentIntegration), result.nextKey);
  }

  async update(at: ResourceScope, idOrSlug: string, body: IntegrationUpdate): Promise<IntegrationRecord> {
    const { principal } = at;
    await refuseGatewayKeyCredentials([{ param: 'credential', value: body.credential }]);
    const current = await this.get(at, idOrSlug);
    const next: IntegrationRecord = {
      ...current,
      name: body.name ?? current.name,
      slug: body.slug ?? current.slug,
      tags: body.tags ?? current.tags,
      shared_with_workspaces: body.shared_with_workspaces === undefined ? current.shared_with_workspaces : await this.sharedWith(principal, body.shared_with_workspaces),
      updated_at: new Date().toISOString(),
    };
    if (body.custom_host === null) delete next.custom_host;
    else if (body.custom_host !== undefined) next.custom_host = checkedCustomHost(body.custom_host);
    if (body.allowed_custom_hosts?.length === 0) delete next.allowed_custom_hosts;
    else if (body.allowed_custom_hosts !== undefined) next.allowed_custom_hosts = body.allowed_custom_hosts;
    if (body.description === null) delete next.description;
    else if (body.description !== undefined) next.description = body.description;
    applyBatchSettings(next, body);
    if (body.credential === null) {
      next.credential_masked = null;
      await deleteIntegrationSecret(this.secrets(), current.organisation_id, current.id);
    } else if (body.credential !== undefined) {
      next.credential_masked = masked(body.credential);
      await writeIntegrationSecret(this.secrets(), current.organisation_id, current.id, { api_key: body.credential! });
    }
    if (!(await withSlugConflict(next.slug, () => this.repository.replace(current, next)))) throw notFoundByIdOrSlug('integration', idOrSlug);
    forgetResolvedProviders();
    return next;
  }

  /** The credential first, then the record; providers enabling it stop working (their requests get a 400). */
  async delete(at: ResourceScope, idOrSlug: string): Promise<IntegrationRecord> {
    const current = await this.get(at, idOrSlug);
    await deleteIntegrationSecret(this.secrets(), current.organisation_id, current.id);
    const deleted = await this.repository.delete(at.principal.organisationId, current.id);
    forgetResolvedProviders();
    if (!deleted) throw notFoundByIdOrSlug('integration', idOrSlug);
    return deleted;
  }

  private async sharedWith(principal: Principal, requested: 'all' | string[]): Promise<'all' | string[]> {
    return requested === 'all' ? 'all' : visibleWorkspaceIds(principal, requested, 'shared_with_workspaces');
  }


  private async forgetSecret(record: IntegrationRecord): Promise<void> {
    try {
      await deleteIntegrationSecret(this.secrets(), record.organisation_id, record.id);
    } catch (error) {
      logger.warn('could not remove the secret of an integration that was not saved', { integration_id: record.id, error_name: (error as Error).name });
    }
  }
}

/** The list filter (`?tags=`, `?provider=`), validated by the definition's listFilter. */
export interface IntegrationFilter {
  tags?: string;
  provider?: string;
}

export function findIntegration(organisationId: string, idOrSlug: string, repository = integrationRepository()): Promise<IntegrationRecord | undefined> {
  return findByIdOrSlug(repository, organisationId, idOrSlug);
}

/** The last four characters of a long credential, nothing of a short one. */
function masked(credential: string): string {
  return credential.length >= 12 ? `****${credential.slice(-4)}` : '****';
}


export function presentIntegration(record: IntegrationRecord): IntegrationView {
  const view: IntegrationView = {
    object: 'integration',
    id: record.id,
    name: record.name,
    slug: record.slug,
    provider: record.provider,
    tags: record.tags,
    shared_with_workspaces: record.shared_with_workspaces,
    allowed_custom_hosts: record.allowed_custom_hosts ?? [],
    credential: { stored: record.credential_masked !== null, masked: record.credential_masked },
    created_at: record.created_at,
    updated_at: record.updated_at,
  };
  if (record.description !== undefined) view.description = record.description;
  if (record.custom_host !== undefined) view.custom_host = record.custom_host;
  return Object.assign(view, batchSettingsView(record));
}

import { randomUUID } from 'node:crypto';
import type { Principal } from '../../auth/principal.js';
import { GatewayError } from '../../http/errors.js';
import { forgetResolvedProviders } from '../../gateway/provider-target.js';
import { integrationRepository, integrationSharedWith, providerRepository, type IntegrationRecord, type ProviderRecord } from '../../store/integration-repository.js';
import { findIntegration } from '../integrations/service.js';
import { bindsCaller, limitsSetBy, organisationLimitRefusal, providerLoosening } from '../organisation-limits.js';
import { hasTags, readTagFilter } from '../integrations/tags.js';
import { toPage, type Page, type PageRequest } from '../pagination.js';
import type { CrudService, ResourceScope } from '../resource/define-resource.js';
import { findByIdOrSlug, notFoundByIdOrSlug } from '../resource/organisation-records.js';
import { withSlugConflict } from '../resource/slugs.js';
import type { ProviderCreate, ProviderUpdate, ProviderView } from './schemas.js';

/**
 * What the routes get back: the view (it names the integration's provider) after a create, get or update; the
 * deleted record after a delete.
 */
export type ProviderResult = ProviderView | ProviderRecord;

/** The list filter (`?tags=`), validated by the definition's listFilter. */
export interface ProviderFilter {
  tags?: string;
}

/** Providers: a workspace's enablement of an integration shared with it. Everything is scoped to one workspace. */
export class ProviderService implements CrudService<ProviderResult, ProviderCreate, ProviderUpdate, ProviderFilter> {
  constructor(
    private readonly repository = providerRepository(),
    private readonly integrations = integrationRepository(),
  ) {}

  async create({ principal, workspaceId }: ResourceScope, body: ProviderCreate): Promise<ProviderView> {
    const integration = await findIntegration(principal.organisationId, body.integration_id, this.integrations);
    if (!integration || !integrationSharedWith(integration, workspaceId)) {
      throw new GatewayError(404, 'not_found', `integration_id: no integration '${body.integration_id.slice(0, 255)}' is shared with this workspace`, { param: 'integration_id' });
    }
    await this.refuseSecondEnablement(principal, workspaceId, integration.id);
    const now = new Date().toISOString();
    const record: ProviderRecord = {
      id: randomUUID(),
      organisation_id: principal.organisationId,
      workspace_id: workspaceId,
      integration_id: integration.id,
      name: body.name ?? integration.name,
      slug: body.slug ?? integration.slug,
      models: body.models ?? [],
      rate_limits: body.rate_limits ?? [],
      enabled: body.enabled ?? true,
      tags: body.tags ?? {},
      set_by: limitsSetBy(principal) === 'organisation' && LIMIT_FIELDS.some((field) => body[field] !== undefined) ? 'organisation' : 'workspace',
      created_at: now,
      updated_at: now,
    };
    if (body.budget) record.budget = body.budget;
    if (body.description !== undefined) record.description = body.description;
    await withSlugConflict(record.slug, () => this.repository.create(record));
    return presentProvider(record, integration);
  }

  async get({ workspaceId }: ResourceScope, idOrSlug: string): Promise<ProviderView> {
    const record = await this.existing(workspaceId, idOrSlug);
    return presentProvider(record, await this.integrations.get(record.organisation_id, record.integration_id));
  }

  async list({ workspaceId }: ResourceScope, page: PageRequest, filter: ProviderFilter): Promise<Page<ProviderView>> {
    const tags = readTagFilter(filter.tags);
    const result = await this.repository.list(workspaceId, page.limit, page.startKey, (record) => hasTags(record.tags, tags));
    const views: ProviderView[] = [];
    for (const record of result.items) views.push(presentProvider(record, await this.integrations.get(record.organisation_id, record.integration_id)));
    return toPage(views, result.nextKey);
  }

  async update({ principal, workspaceId }: ResourceScope, idOrSlug: string, body: ProviderUpdate): Promise<ProviderView> {
    const current = await this.existing(workspaceId, idOrSlug);
    const next: ProviderRecord = {
      ...current,
      name: body.name ?? current.name,
      slug: body.slug ?? current.slug,
      models: body.models ?? current.models,
      rate_limits: body.rate_limits ?? current.rate_limits,
      enabled: body.enabled ?? current.enabled,
      tags: body.tags ?? current.tags,
      updated_at: new Date().toISOString(),
    };
    if (body.budget === null) delete next.budget;
    else if (body.budget !== undefined) next.budget = body.budget;
    if (body.description === null) delete next.description;
    else if (body.description !== undefined) next.description = body.description;
    if (bindsCaller(principal, current)) {
      const loosened = providerLoosening(current, next);
      if (loosened) throw organisationLimitRefusal(loosened.message, loosened.field);
    } else if (limitsSetBy(principal) === 'organisation' && LIMIT_FIELDS.some((field) => body[field] !== undefined)) {
      next.set_by = 'organisation';
    }
    if (!(await withSlugConflict(next.slug, () => this.repository.replace(current, next)))) throw providerNotFound(idOrSlug);
    forgetResolvedProviders();
    return presentProvider(next, await this.integrations.get(next.organisation_id, next.integration_id));
  }

  async delete({ principal, workspaceId }: ResourceScope, idOrSlug: string): Promise<ProviderRecord> {
    const current = await this.existing(workspaceId, idOrSlug);
    if (bindsCaller(principal, current)) throw organisationLimitRefusal(`The provider '${current.slug}' cannot be deleted`);
    const deleted = await this.repository.delete(workspaceId, current.id);
    forgetResolvedProviders();
    if (!deleted) throw providerNotFound(idOrSlug);
    return deleted;
  }

  /**
   * A workspace key may not enable an integration a second time beside a provider whose limits the organisation
   * set: the second provider would reach the same credential without them.
   */
  private async refuseSecondEnablement(principal: Principal, workspaceId: string, integrationId: string): Promise<void> {
    if (limitsSetBy(principal) === 'organisation') return;
    const limited = (await this.repository.all(workspaceId)).find((record) => record.integration_id === integrationId && record.set_by === 'organisation');
    if (limited) throw organisationLimitRefusal(`integration_id: the integration is already enabled as '@${limited.slug}' with limits; a second provider would bypass them`, 'integration_id');
  }

  private async existing(workspaceId: string, idOrSlug: string): Promise<ProviderRecord> {
    const record = await findProvider(workspaceId, idOrSlug, this.repository);
    if (!record) throw providerNotFound(idOrSlug);
    return record;
  }
}

/** The fields that hold a provider's limits: writing one with an admin key makes them the organisation's. */
const LIMIT_FIELDS = ['budget', 'rate_limits', 'models', 'enabled'] as const;

export function findProvider(workspaceId: string, idOrSlug: string, repository = providerRepository()): Promise<ProviderRecord | undefined> {
  return findByIdOrSlug(repository, workspaceId, idOrSlug);
}

function providerNotFound(idOrSlug: string): GatewayError {
  return notFoundByIdOrSlug('provider', idOrSlug, ' in this workspace');
}

export function presentProvider(record: ProviderRecord, integration: IntegrationRecord | undefined): ProviderView {
  const view: ProviderView = {
    object: 'provider',
    id: record.id,
    workspace_id: record.workspace_id,
    integration_id: record.integration_id,
    provider: integration?.provider ?? 'unavailable',
    name: record.name,
    slug: record.slug,
    models: record.models,
    rate_limits: record.rate_limits,
    enabled: record.enabled,
    tags: record.tags,
    set_by: record.set_by ?? 'workspace',
    created_at: record.created_at,
    updated_at: record.updated_at,
  };
  if (record.budget) view.budget = record.budget;
  if (record.description !== undefined) view.description = record.description;
  return view;
}

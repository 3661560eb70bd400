import { defineResource, readWriteScopes } from '../resource/define-resource.js';
import { validate } from '../../http/json-body.js';
import {
  providerCreateSchema,
  providerDeletedSchema,
  providerIdPathSchema,
  providerListQuerySchema,
  providerListSchema,
  providerSchema,
  providerUpdateSchema,
  providerWorkspaceQuerySchema,
} from './schemas.js';
import { ProviderService, type ProviderResult } from './service.js';

/**
 * Providers (workspace level): `POST|GET /v1/providers`, `GET|PATCH|DELETE /v1/providers/{providerId}` (id or slug).
 * Admin keys may name another workspace with `?workspace_id=`. Scopes providers:read|list|write; audited.
 */
export const providerResource = defineResource({
  kind: 'provider',
  path: '/v1/providers',
  tag: 'Providers',
  scopes: readWriteScopes('providers'),
  workspace: 'query',
  schemas: {
    create: providerCreateSchema,
    update: providerUpdateSchema,
    view: providerSchema,
    list: providerListSchema,
    deleted: providerDeletedSchema,
    idPath: providerIdPathSchema,
    listQuery: providerListQuerySchema,
    workspaceQuery: providerWorkspaceQuerySchema,
  },
  service: () => new ProviderService(),
  // The service presents what it returns itself (a view needs the integration's provider, read from the store).
  present: (result: ProviderResult) => result,
  listFilter: (query) => validate(providerListQuerySchema.pick({ tags: true }), { tags: query.tags }),
  audit: {
    created: (view) => ({ slug: view.slug, integration_id: view.integration_id }),
    deleted: (record) => ({ slug: record.slug }),
  },
  errors: { conflict: true },
  docs: {
    create: {
      summary: 'Enable an integration in a workspace',
      description: 'The integration must be shared with the workspace. Requests then use it with x-gw-provider: @<slug>: its credential, model allowlist, budget and rate limits.',
    },
    list: { summary: 'List the workspace’s providers', description: 'Newest first; filter with ?tags=key:value.', scopes: ['providers:list', 'providers:read'] },
    get: { summary: 'Get a provider' },
    update: { summary: 'Update a provider', description: 'models and rate_limits replace the stored lists; budget: null removes the budget.' },
    delete: { summary: 'Disable (remove) a provider' },
  },
});

import { defineResource, readWriteScopes } from '../resource/define-resource.js';
import { validate } from '../../http/json-body.js';
import {
  integrationCreateSchema,
  integrationDeletedSchema,
  integrationIdPathSchema,
  integrationListQuerySchema,
  integrationListSchema,
  integrationSchema,
  integrationUpdateSchema,
} from './schemas.js';
import { IntegrationService, presentIntegration } from './service.js';

const NEVER_RETURNED = 'The credential goes to the secret store and is never returned (only its last characters, masked).';
const ADMIN = 'Changes need an organisation admin key.';

/**
 * Integrations (organisation level): `POST|GET /v1/integrations`, `GET|PATCH|DELETE /v1/integrations/{integrationId}`
 * (id or slug). Changes need an organisation admin key (integrations:write); reads need integrations:read. A body's
 * JSON syntax error is not quoted back (it would quote the credential); audits carry field names only.
 */
export const integrationResource = defineResource({
  kind: 'integration',
  path: '/v1/integrations',
  tag: 'Integrations',
  scopes: readWriteScopes('integrations'),
  writesNeedOrganisationAdmin: 'Managing integrations',
  workspace: 'organisation',
  secretBearingBody: true,
  schemas: {
    create: integrationCreateSchema,
    update: integrationUpdateSchema,
    view: integrationSchema,
    list: integrationListSchema,
    deleted: integrationDeletedSchema,
    idPath: integrationIdPathSchema,
    listQuery: integrationListQuerySchema,
  },
  service: () => new IntegrationService(),
  present: presentIntegration,
  listFilter: (query) => validate(integrationListQuerySchema.pick({ tags: true, provider: true }), { tags: query.tags, provider: query.provider }),
  audit: {
    created: (record) => ({ name: record.name, slug: record.slug, provider: record.provider }),
    deleted: (record) => ({ name: record.name, slug: record.slug }),
  },
  errors: { conflict: true, secretStore: true },
  docs: {
    create: { summary: 'Create an integration (an organisation provider credential)', description: `${NEVER_RETURNED} ${ADMIN} Share it with workspaces, which enable it as a provider.` },
    list: {
      summary: 'List integrations',
      description: 'Admin keys see every integration of the organisation; workspace keys those shared with their workspace. Filter with ?tags=key:value.',
      scopes: ['integrations:list', 'integrations:read'],
    },
    get: { summary: 'Get an integration', description: NEVER_RETURNED },
    update: { summary: 'Update or rotate an integration', description: `credential: null removes the stored credential. ${ADMIN}` },
    delete: { summary: 'Delete an integration and its stored credential', description: `Providers enabling it stop working. ${ADMIN}` },
  },
});

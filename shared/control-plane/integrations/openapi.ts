// Documentation only: read by scripts/openapi.ts to write docs/openapi.yaml, never imported by a handler.
import type { OpenApiOperation } from '../../../scripts/openapi/operation.js';
import {
  integrationCreateSchema,
  integrationDeletedSchema,
  integrationIdPathSchema,
  integrationListQuerySchema,
  integrationListSchema,
  integrationSchema,
  integrationUpdateSchema,
} from './schemas.js';

const TAG = 'Integrations';
const NEVER_RETURNED = 'The credential goes to the secret store and is never returned (only its last characters, masked).';
const ADMIN = 'Changes need an organisation admin key.';

export const openApiOperations: OpenApiOperation[] = [
  {
    method: 'post',
    path: '/v1/integrations',
    operationId: 'createIntegration',
    summary: 'Create an integration (an organisation provider credential)',
    description: `${NEVER_RETURNED} ${ADMIN} Share it with workspaces, which enable it as a provider.`,
    tags: [TAG],
    scopes: ['integrations:write'],
    body: integrationCreateSchema,
    responses: { '201': { description: 'The integration.', schema: integrationSchema } },
    errors: [400, 401, 403, 404, 409, 503],
  },
  {
    method: 'get',
    path: '/v1/integrations',
    operationId: 'listIntegrations',
    summary: 'List integrations',
    description: 'Admin keys see every integration of the organisation; workspace keys those shared with their workspace. Filter with ?tags=key:value.',
    tags: [TAG],
    scopes: ['integrations:list', 'integrations:read'],
    query: integrationListQuerySchema,
    responses: { '200': { description: 'One page of integrations.', schema: integrationListSchema } },
    errors: [400, 401, 403],
  },
  {
    method: 'get',
    path: '/v1/integrations/{integrationId}',
    operationId: 'getIntegration',
    summary: 'Get an integration',
    description: NEVER_RETURNED,
    tags: [TAG],
    scopes: ['integrations:read'],
    pathParameters: integrationIdPathSchema,
    responses: { '200': { description: 'The integration.', schema: integrationSchema } },
    errors: [401, 403, 404],
  },
  {
    method: 'patch',
    path: '/v1/integrations/{integrationId}',
    operationId: 'updateIntegration',
    summary: 'Update or rotate an integration',
    description: `credential: null removes the stored credential. ${ADMIN}`,
    tags: [TAG],
    scopes: ['integrations:write'],
    pathParameters: integrationIdPathSchema,
    body: integrationUpdateSchema,
    responses: { '200': { description: 'The updated integration.', schema: integrationSchema } },
    errors: [400, 401, 403, 404, 409, 503],
  },
  {
    method: 'delete',
    path: '/v1/integrations/{integrationId}',
    operationId: 'deleteIntegration',
    summary: 'Delete an integration and its stored credential',
    description: `Providers enabling it stop working. ${ADMIN}`,
    tags: [TAG],
    scopes: ['integrations:write'],
    pathParameters: integrationIdPathSchema,
    responses: { '200': { description: 'Deleted.', schema: integrationDeletedSchema } },
    errors: [401, 403, 404, 503],
  },
];

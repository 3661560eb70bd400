// Documentation only: read by scripts/openapi.ts to write docs/openapi.yaml, never imported by a handler.
import type { OpenApiOperation } from '../openapi-operation.js';
import { operationFamily } from '../operation-family.js';
import { listPolicyEntitiesQuerySchema, policyEntityListSchema } from './schemas.js';

/** The read over both kinds (policies/routes.ts); each kind's operations derive from its definition (resource.ts). */
export const openApiOperations: OpenApiOperation[] = [
  operationFamily({ tag: 'Policies', scopes: ['policies:read', 'policies:list'], featureFlags: ['POLICY_ENABLED'] }).list({
    path: '/v1/policies/entities',
    operationId: 'listPolicyEntities',
    summary: 'List the API keys, workspaces and users linked to policies',
    description: 'Entities named by the conditions of the policies the caller may see (api_key, workspace_id and metadata._user values; * names nothing), with the policies naming each.',
    query: listPolicyEntitiesQuerySchema,
    response: { description: 'One page of entities.', schema: policyEntityListSchema },
  }),
];

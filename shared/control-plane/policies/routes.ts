import { jsonResponse } from '../../http/types.js';
import { listActivePolicies } from '../../store/policy-repository.js';
import { gatedBy } from '../feature-flags.js';
import type { RouteRegistrar } from '../handler-types.js';
import { readPageRequest } from '../pagination.js';
import { registerResource } from '../resource/derive-routes.js';
import { validate } from '../../http/json-body.js';
import { registerWorkspaceContentProbe } from '../workspaces/contents.js';
import { pagePolicyEntities } from './policy-entities.js';
import { PolicyService } from './policy-service.js';
import { rateLimitPolicyResource, requirePolicyListScope, usageLimitPolicyResource } from './resource.js';
import { listPolicyEntitiesQuerySchema } from './schemas.js';

// Query validation leaves `limit` and `cursor` to the shared pagination reader.
const entitiesQuerySchema = listPolicyEntitiesQuerySchema.omit({ limit: true, cursor: true });

/**
 * The policies API: each kind's routes come from its definition (policies/resource.ts); `GET /v1/policies/entities`,
 * a read over both kinds, is written here (documented in openapi.ts).
 */
export function registerPolicyRoutes(register: RouteRegistrar): void {
  // A workspace with active policies is not empty: deleting it needs `force`.
  registerWorkspaceContentProbe('policies', async (workspaceId) => (await listActivePolicies(workspaceId)).length > 0);
  registerResource(register, rateLimitPolicyResource);
  registerResource(register, usageLimitPolicyResource);

  let service: PolicyService | undefined;
  // Created on first use: repositories read settings, which the local runtime sets up after importing routes.
  const policies = () => (service ??= new PolicyService());
  register('GET', '/v1/policies/entities', gatedBy('POLICY_ENABLED', async (call) => {
    requirePolicyListScope(call.principal);
    const page = readPageRequest(call.request);
    const query = validate(entitiesQuerySchema, call.request.query);
    const visible = await policies().listAll(call.principal, query);
    return jsonResponse(200, await pagePolicyEntities(visible, page, policies().referenceStores));
  }));
}

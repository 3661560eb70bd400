import { hasScope, isJwtPrincipal, type Principal } from '../../auth/principal.js';
import type { NeutralResponse } from '../../http/types.js';
import type { ControlPlaneRequest } from '../handler-types.js';
import { audited } from '../audit.js';
import { requireFeature } from '../feature-flags.js';
import type { RouteRegistrar } from '../handler-types.js';
import { listOf, RESOURCE_TYPES, SCHEMAS, SERVICE_PROVIDER_CONFIG } from './discovery.js';
import { ScimGroups } from './groups.js';
import { SCIM_PATH_PREFIX, ScimError, scimErrorResponse, scimResponse } from './protocol.js';
import { scimCall, type ScimCall } from './scim-call.js';
import { ScimUsers } from './users.js';

type ScimHandler = (call: ScimCall, params: Record<string, string>) => Promise<NeutralResponse>;

/**
 * SCIM 2.0 under /v1/scim/v2 (SCIM_ENABLED): Users, Groups and the discovery endpoints. The identity provider
 * authenticates with `Authorization: Bearer <gw API key>` (an organisation admin key or one with the `scim`
 * scope). Every answer is application/scim+json, errors included; every change is audited.
 */
export function registerScimRoutes(register: RouteRegistrar): void {
  const users = new ScimUsers();
  const groups = new ScimGroups();
  const route = (method: string, path: string, handler: ScimHandler, action?: string) =>
    register(method, `${SCIM_PATH_PREFIX}${path}`, (request) => scimRoute(request, handler, action));

  route('GET', '/ServiceProviderConfig', async () => scimResponse(200, SERVICE_PROVIDER_CONFIG));
  route('GET', '/ResourceTypes', async () => scimResponse(200, listOf(RESOURCE_TYPES)));
  route('GET', '/ResourceTypes/{id}', async (_call, params) => scimResponse(200, findById(RESOURCE_TYPES, params.id, 'ResourceType')));
  route('GET', '/Schemas', async () => scimResponse(200, listOf(SCHEMAS)));
  route('GET', '/Schemas/{id}', async (_call, params) => scimResponse(200, findById(SCHEMAS, params.id, 'Schema')));

  route('POST', '/Users', (call) => users.create(call), 'scim.user.create');
  route('GET', '/Users', (call) => users.list(call));
  route('GET', '/Users/{id}', (call, params) => users.get(call, params.id));
  route('PUT', '/Users/{id}', (call, params) => users.replace(call, params.id), 'scim.user.replace');
  route('PATCH', '/Users/{id}', (call, params) => users.patch(call, params.id), 'scim.user.patch');
  route('DELETE', '/Users/{id}', (call, params) => users.delete(call, params.id), 'scim.user.deactivate');

  route('POST', '/Groups', (call) => groups.create(call), 'scim.group.create');
  route('GET', '/Groups', (call) => groups.list(call));
  route('GET', '/Groups/{id}', (call, params) => groups.get(call, params.id));
  route('PUT', '/Groups/{id}', (call, params) => groups.replace(call, params.id), 'scim.group.replace');
  route('PATCH', '/Groups/{id}', (call, params) => groups.patch(call, params.id), 'scim.group.patch');
  route('DELETE', '/Groups/{id}', (call, params) => groups.delete(call, params.id), 'scim.group.delete');
}

async function scimRoute(request: ControlPlaneRequest, handler: ScimHandler, action: string | undefined): Promise<NeutralResponse> {
  try {
    requireFeature('SCIM_ENABLED');
    requireScimCaller(request.principal);
    const call = scimCall(request.principal, request.request);
    if (!action) return await handler(call, request.params);
    const resourceType = action.split('.')[1];
    return await audited(request, { action, resource_type: `scim_${resourceType}`, resource_id: request.params.id }, async () => {
      const response = await handler(call, request.params);
      const created = response.status === 201 && typeof response.body === 'string' ? (JSON.parse(response.body) as { id?: string }).id : undefined;
      return { value: response, resource_id: created ?? request.params.id, details: { status: response.status } };
    });
  } catch (thrown) {
    return scimErrorResponse(thrown, { 'x-gw-trace-id': request.traceId });
  }
}

/** An organisation admin API key, or an API key with the `scim` scope; never a JWT (read-only by design). */
function requireScimCaller(principal: Principal): void {
  if (isJwtPrincipal(principal)) throw new ScimError(403, undefined, 'SCIM needs a gw API key (Authorization: Bearer <key>); a JWT is read-only', 'jwt_read_only');
  if (!hasScope(principal, 'scim')) throw new ScimError(403, undefined, 'This API key lacks the scim scope (or use an organisation admin key)', 'missing_scope');
}

function findById<Item extends { id: string }>(items: Item[], id: string, what: string): Item {
  const found = items.find((item) => item.id.toLowerCase() === decodeURIComponent(id).toLowerCase());
  if (!found) throw new ScimError(404, undefined, `No ${what} '${id.slice(0, 200)}'`, 'not_found');
  return found;
}

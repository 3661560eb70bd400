import { jsonResponse } from '../../http/types.js';
import type { ControlPlaneRequest } from '../handler-types.js';
import { audited } from '../audit.js';
import { requireListScope, requireScope } from '../authorization.js';
import { readPageRequest } from '../pagination.js';
import type { RouteRegistrar } from '../handler-types.js';
import { parseJsonBody, validate } from '../validation.js';
import { targetWorkspace } from '../workspaces/access.js';
import { providerCreateSchema, providerListQuerySchema, providerUpdateSchema } from './schemas.js';
import { ProviderService } from './service.js';

/**
 * Providers (workspace level): `POST|GET /v1/providers`, `GET|PATCH|DELETE /v1/providers/{providerId}` (id or
 * slug). Admin keys may name another workspace with `?workspace_id=`. Scopes providers:read|list|write; audited.
 */
export function registerProviderRoutes(register: RouteRegistrar): void {
  let service: ProviderService | undefined;
  const providers = () => (service ??= new ProviderService());
  const workspaceOf = async (call: ControlPlaneRequest) => (await targetWorkspace(call.principal, call.request.query.workspace_id)).id;

  register('POST', '/v1/providers', (call) =>
    audited(call, { action: 'provider.create', resource_type: 'provider' }, async () => {
      requireScope(call.principal, 'providers:write');
      const workspaceId = await workspaceOf(call);
      const view = await providers().create(call.principal, workspaceId, parseJsonBody(call.request, providerCreateSchema));
      return { value: jsonResponse(201, view), resource_id: view.id, workspace_id: workspaceId, details: { slug: view.slug, integration_id: view.integration_id } };
    }),
  );

  register('GET', '/v1/providers', async (call) => {
    requireListScope(call.principal, 'providers:read');
    const query = validate(providerListQuerySchema.pick({ tags: true }), { tags: call.request.query.tags });
    return jsonResponse(200, await providers().list(await workspaceOf(call), query.tags, readPageRequest(call.request)));
  });

  register('GET', '/v1/providers/{providerId}', async (call) => {
    requireScope(call.principal, 'providers:read');
    return jsonResponse(200, await providers().get(await workspaceOf(call), call.params.providerId));
  });

  register('PATCH', '/v1/providers/{providerId}', (call) =>
    audited(call, { action: 'provider.update', resource_type: 'provider', resource_id: call.params.providerId }, async () => {
      requireScope(call.principal, 'providers:write');
      const workspaceId = await workspaceOf(call);
      const body = parseJsonBody(call.request, providerUpdateSchema);
      const view = await providers().update(call.principal, workspaceId, call.params.providerId, body);
      return { value: jsonResponse(200, view), resource_id: view.id, workspace_id: workspaceId, details: { changed: Object.keys(body).sort() } };
    }),
  );

  register('DELETE', '/v1/providers/{providerId}', (call) =>
    audited(call, { action: 'provider.delete', resource_type: 'provider', resource_id: call.params.providerId }, async () => {
      requireScope(call.principal, 'providers:write');
      const workspaceId = await workspaceOf(call);
      const deleted = await providers().delete(call.principal, workspaceId, call.params.providerId);
      return { value: jsonResponse(200, { object: 'provider', id: deleted.id, deleted: true }), resource_id: deleted.id, workspace_id: workspaceId, details: { slug: deleted.slug } };
    }),
  );
}

import { badRequest } from '../../http/errors.js';
import { jsonResponse } from '../../http/types.js';
import type { ControlPlaneRequest } from '../handler-types.js';
import { audited } from '../audit.js';
import { requireListScope, requireScope } from '../authorization.js';
import { readPageRequest, toPage } from '../pagination.js';
import type { RouteRegistrar } from '../handler-types.js';
import { parseJsonBody } from '../validation.js';
import { targetWorkspace } from '../workspaces/access.js';
import { registerWorkspaceContentProbe } from '../workspaces/contents.js';
import { createConfigSchema, updateConfigSchema } from './schemas.js';
import { ConfigService, presentConfig, presentConfigVersion } from './service.js';

/**
 * Saved configs: `POST|GET /v1/configs`, `GET|PUT|DELETE /v1/configs/{id}` (`?version=N` reads an old
 * version), `GET /v1/configs/{id}/versions`. Every update is a new version; a request may pin `id@version`.
 * Admin keys may name another workspace of their organisation with `?workspace_id=`.
 */
export function registerConfigRoutes(register: RouteRegistrar): void {
  let service: ConfigService | undefined;
  // Created on first use: repositories read settings, which the local runtime prepares after loading routes.
  const configs = () => (service ??= new ConfigService());
  const workspaceOf = async (call: ControlPlaneRequest) => (await targetWorkspace(call.principal, call.request.query.workspace_id)).id;
  // A workspace holding saved configs is not empty: deleting it needs `force`.
  registerWorkspaceContentProbe('configs', async (workspaceId) => (await configs().list(workspaceId, { limit: 1 })).items.length > 0);

  register('POST', '/v1/configs', (call) =>
    audited(call, { action: 'config.create', resource_type: 'config' }, async () => {
      requireScope(call.principal, 'configs:write');
      const body = parseJsonBody(call.request, createConfigSchema);
      const workspaceId = await workspaceOf(call);
      const record = await configs().create(workspaceId, body.name, body.config);
      return { value: jsonResponse(201, presentConfig(record)), resource_id: record.id, workspace_id: workspaceId, details: { name: record.name, version: 1 } };
    }),
  );

  register('GET', '/v1/configs', async (call) => {
    requireListScope(call.principal, 'configs:read');
    const page = readPageRequest(call.request);
    const { items, lastKey } = await configs().list(await workspaceOf(call), page);
    return jsonResponse(200, toPage(items.map(presentConfig), lastKey));
  });

  register('GET', '/v1/configs/{id}', async (call) => {
    requireScope(call.principal, 'configs:read');
    const version = readVersion(call.request.query.version);
    return jsonResponse(200, presentConfig(await configs().get(await workspaceOf(call), call.params.id, version)));
  });

  register('GET', '/v1/configs/{id}/versions', async (call) => {
    requireListScope(call.principal, 'configs:read');
    const versions = await configs().versions(await workspaceOf(call), call.params.id);
    return jsonResponse(200, { object: 'list', data: versions.map(presentConfigVersion), has_more: false, next_cursor: null });
  });

  register('PUT', '/v1/configs/{id}', (call) =>
    audited(call, { action: 'config.update', resource_type: 'config', resource_id: call.params.id }, async () => {
      requireScope(call.principal, 'configs:write');
      const body = parseJsonBody(call.request, updateConfigSchema);
      const workspaceId = await workspaceOf(call);
      const record = await configs().update(workspaceId, call.params.id, body);
      return { value: jsonResponse(200, presentConfig(record)), workspace_id: workspaceId, details: { version: record.version } };
    }),
  );

  register('DELETE', '/v1/configs/{id}', (call) =>
    audited(call, { action: 'config.delete', resource_type: 'config', resource_id: call.params.id }, async () => {
      requireScope(call.principal, 'configs:write');
      const workspaceId = await workspaceOf(call);
      await configs().delete(workspaceId, call.params.id);
      return { value: jsonResponse(200, { id: call.params.id, object: 'config', deleted: true }), workspace_id: workspaceId };
    }),
  );
}

function readVersion(value: string | undefined): number | undefined {
  if (value === undefined || value === '') return undefined;
  if (!/^\d{1,9}$/.test(value) || Number(value) < 1) throw badRequest('invalid_version', 'version must be a positive integer', 'version');
  return Number(value);
}

import { badRequest } from '../../http/errors.js';
import { jsonResponse } from '../../http/types.js';
import type { ControlPlaneRequest } from '../handler-types.js';
import { audited } from '../audit.js';
import { requireListScope, requireScope } from '../authorization.js';
import { gatedBy } from '../feature-flags.js';
import { readPageRequest, toPage } from '../pagination.js';
import type { RouteRegistrar } from '../handler-types.js';
import { parseJsonBody } from '../validation.js';
import { targetWorkspace } from '../workspaces/access.js';
import { registerWorkspaceContentProbe } from '../workspaces/contents.js';
import { guardrailCreateSchema, guardrailUpdateSchema } from './schemas.js';
import { GuardrailService, presentGuardrail } from './service.js';

/**
 * Guardrails (docs/guardrails.md): `POST|GET /v1/guardrails`, `GET|PUT|DELETE /v1/guardrails/{id}`
 * (`?version=N` reads an old version), `GET /v1/guardrails/{id}/versions`. All answer 404 `feature_disabled`
 * while GUARDRAILS_ENABLED=OFF. Admin keys may name another workspace of their organisation with `?workspace_id=`.
 */
export function registerGuardrailRoutes(register: RouteRegistrar): void {
  let service: GuardrailService | undefined;
  // Created on first use: repositories read settings, which the local runtime prepares after loading routes.
  const guardrails = () => (service ??= new GuardrailService());
  const workspaceOf = async (call: ControlPlaneRequest) => (await targetWorkspace(call.principal, call.request.query.workspace_id)).id;
  const route: RouteRegistrar = (method, pattern, handler) => register(method, pattern, gatedBy('GUARDRAILS_ENABLED', handler));
  registerWorkspaceContentProbe('guardrails', async (workspaceId) => (await guardrails().list(workspaceId, { limit: 1 })).items.length > 0);

  route('POST', '/v1/guardrails', (call) =>
    audited(call, { action: 'guardrail.create', resource_type: 'guardrail' }, async () => {
      requireScope(call.principal, 'guardrails:write');
      const body = parseJsonBody(call.request, guardrailCreateSchema);
      const workspaceId = await workspaceOf(call);
      const record = await guardrails().create(workspaceId, body);
      return { value: jsonResponse(201, presentGuardrail(record)), resource_id: record.id, workspace_id: workspaceId, details: { name: record.name, type: record.type, version: 1 } };
    }),
  );

  route('GET', '/v1/guardrails', async (call) => {
    requireListScope(call.principal, 'guardrails:read');
    const page = readPageRequest(call.request);
    const { items, lastKey } = await guardrails().list(await workspaceOf(call), page);
    return jsonResponse(200, toPage(items.map(presentGuardrail), lastKey));
  });

  route('GET', '/v1/guardrails/{id}', async (call) => {
    requireScope(call.principal, 'guardrails:read');
    const version = readVersion(call.request.query.version);
    return jsonResponse(200, presentGuardrail(await guardrails().get(await workspaceOf(call), call.params.id, version)));
  });

  route('GET', '/v1/guardrails/{id}/versions', async (call) => {
    requireListScope(call.principal, 'guardrails:read');
    const versions = await guardrails().versions(await workspaceOf(call), call.params.id);
    return jsonResponse(200, {
      object: 'list',
      data: versions.map((version) => ({ object: 'guardrail_version', id: version.id, name: version.name, type: version.type, version: version.version, config: version.config, created_at: version.created_at })),
      has_more: false,
      next_cursor: null,
    });
  });

  route('PUT', '/v1/guardrails/{id}', (call) =>
    audited(call, { action: 'guardrail.update', resource_type: 'guardrail', resource_id: call.params.id }, async () => {
      requireScope(call.principal, 'guardrails:write');
      const body = parseJsonBody(call.request, guardrailUpdateSchema);
      const workspaceId = await workspaceOf(call);
      const record = await guardrails().update(workspaceId, call.params.id, body);
      return { value: jsonResponse(200, presentGuardrail(record)), workspace_id: workspaceId, details: { version: record.version, type: record.type } };
    }),
  );

  route('DELETE', '/v1/guardrails/{id}', (call) =>
    audited(call, { action: 'guardrail.delete', resource_type: 'guardrail', resource_id: call.params.id }, async () => {
      requireScope(call.principal, 'guardrails:write');
      const workspaceId = await workspaceOf(call);
      await guardrails().delete(workspaceId, call.params.id);
      return { value: jsonResponse(200, { id: call.params.id, object: 'guardrail', deleted: true }), workspace_id: workspaceId };
    }),
  );
}

function readVersion(value: string | undefined): number | undefined {
  if (value === undefined || value === '') return undefined;
  if (!/^\d{1,9}$/.test(value) || Number(value) < 1) throw badRequest('invalid_version', 'version must be a positive integer', 'version');
  return Number(value);
}

import type { z } from 'zod';
import { GatewayError, badRequest } from '../../http/errors.js';
import { jsonResponse, type NeutralRequest } from '../../http/types.js';
import type { ControlPlaneRequest } from '../handler-types.js';
import { audited } from '../audit.js';
import { notFound, requireListScope, requireScope } from '../authorization.js';
import { readPageRequest } from '../pagination.js';
import type { RouteRegistrar } from '../handler-types.js';
import { parseJsonBody } from '../validation.js';
import { targetWorkspace } from '../workspaces/access.js';
import { virtualKeyCreateSchema, virtualKeyUpdateSchema } from './schemas.js';
import { VirtualKeyService } from './virtual-key-service.js';
import { registerWorkspaceContentProbe } from '../workspaces/contents.js';
import { VirtualKeyRepository } from '../../store/virtual-key-repository.js';

/** Ids are UUIDs; anything else cannot exist, and must not reach a table key. */
const VIRTUAL_KEY_ID = /^[A-Za-z0-9_-]{1,128}$/;

/**
 * Virtual keys: `POST|GET /v1/virtual-keys`, `GET|PATCH|DELETE /v1/virtual-keys/{virtualKeyId}`. Admin keys may
 * name another workspace of their organisation with `?workspace_id=`. No response ever carries the credential.
 */
export function registerVirtualKeyRoutes(register: RouteRegistrar): void {
  let service: VirtualKeyService | undefined;
  // Built on first use: settings (and so the secret store) are read only once a request arrives.
  const virtualKeys = () => (service ??= new VirtualKeyService());
  // A workspace holding virtual keys is not empty: deleting it needs `force`.
  registerWorkspaceContentProbe('virtual_keys', async (workspaceId) => (await new VirtualKeyRepository().list(workspaceId, 1)).items.length > 0);
  const workspaceOf = async (call: ControlPlaneRequest) => (await targetWorkspace(call.principal, call.request.query.workspace_id)).id;

  register('POST', '/v1/virtual-keys', (call) =>
    audited(call, { action: 'virtual_key.create', resource_type: 'virtual_key' }, async () => {
      requireScope(call.principal, 'virtual_keys:write');
      const workspaceId = await workspaceOf(call);
      const body = parseSecretBearingBody(call.request, virtualKeyCreateSchema);
      const view = await virtualKeys().create(call.principal.organisationId, workspaceId, body);
      return { value: jsonResponse(201, view), resource_id: view.id, workspace_id: workspaceId, details: { name: view.name, provider: view.provider } };
    }),
  );

  register('GET', '/v1/virtual-keys', async (call) => {
    requireListScope(call.principal, 'virtual_keys:read');
    return jsonResponse(200, await virtualKeys().list(await workspaceOf(call), readPageRequest(call.request)));
  });

  register('GET', '/v1/virtual-keys/{virtualKeyId}', async (call) => {
    requireScope(call.principal, 'virtual_keys:read');
    return jsonResponse(200, await virtualKeys().get(await workspaceOf(call), checkedId(call)));
  });

  register('PATCH', '/v1/virtual-keys/{virtualKeyId}', (call) =>
    audited(call, { action: 'virtual_key.update', resource_type: 'virtual_key', resource_id: call.params.virtualKeyId }, async () => {
      requireScope(call.principal, 'virtual_keys:write');
      const workspaceId = await workspaceOf(call);
      const id = checkedId(call);
      const body = parseSecretBearingBody(call.request, virtualKeyUpdateSchema);
      const view = await virtualKeys().update(workspaceId, id, body);
      // Field names only: the values of credential and secret fields never reach the audit log.
      return { value: jsonResponse(200, view), workspace_id: workspaceId, details: { changed: Object.keys(body).sort() } };
    }),
  );

  register('DELETE', '/v1/virtual-keys/{virtualKeyId}', (call) =>
    audited(call, { action: 'virtual_key.delete', resource_type: 'virtual_key', resource_id: call.params.virtualKeyId }, async () => {
      requireScope(call.principal, 'virtual_keys:write');
      const workspaceId = await workspaceOf(call);
      const id = checkedId(call);
      const deleted = await virtualKeys().delete(workspaceId, id);
      return {
        value: jsonResponse(200, { object: 'virtual_key', id, deleted: true }),
        workspace_id: workspaceId,
        details: { name: deleted.name, provider: deleted.provider },
      };
    }),
  );
}

function checkedId(call: ControlPlaneRequest): string {
  const id = call.params.virtualKeyId;
  if (!VIRTUAL_KEY_ID.test(id)) throw notFound('virtual key', id.slice(0, 128));
  return id;
}

/**
 * Like parseJsonBody, but a JSON syntax error is reported without the parser's message: V8 quotes a piece of
 * the input there, and the input holds a credential.
 */
function parseSecretBearingBody<Schema extends z.ZodType>(request: NeutralRequest, schema: Schema): z.infer<Schema> {
  try {
    return parseJsonBody(request, schema);
  } catch (error) {
    if (error instanceof GatewayError && error.code === 'invalid_json') throw badRequest('invalid_json', 'The request body is not valid JSON');
    throw error;
  }
}

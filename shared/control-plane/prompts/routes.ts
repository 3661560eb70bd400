import type { Scope } from '../../auth/scopes.js';
import { badRequest } from '../../http/errors.js';
import { jsonResponse, type NeutralResponse } from '../../http/types.js';
import type { ControlPlaneRequest, ResourceHandler, RouteRegistrar } from '../handler-types.js';
import { audited, type MutationResult } from '../audit.js';
import { requireListScope, requireScope } from '../authorization.js';
import { readPageRequest } from '../pagination.js';
import type { ResourceScope } from '../resource/define-resource.js';
import { parseJsonBody } from '../../http/json-body.js';
import type { PromptService } from './prompt-service.js';
import { parseRenderBody, renderStoredPrompt } from '../../prompts/render.js';
import { promptLabelSchema } from './schemas.js';
import { readVersionSelector } from '../../prompts/versions.js';

type Handler = (call: ControlPlaneRequest, workspaceId: string, service: PromptService) => ReturnType<ResourceHandler>;
type Mutation = (call: ControlPlaneRequest, workspaceId: string, service: PromptService) => Promise<MutationResult<NeutralResponse>>;

/**
 * The prompt routes besides CRUD (resource.ts derives those): versions, publish, labels and
 * `POST /v1/prompts/{promptId}/render`. Admin keys may name another workspace with `?workspace_id=`.
 */
export function registerPromptVersionRoutes(register: RouteRegistrar, prompts: () => PromptService, scopeOf: (call: ControlPlaneRequest) => Promise<ResourceScope>): void {
  const workspaceOf = async (call: ControlPlaneRequest) => (await scopeOf(call)).workspaceId;

  /** A read: scope check (a list also accepts `prompts:list`), workspace, handler. */
  const read = (method: string, pattern: string, scope: Scope | 'list', handler: Handler) =>
    register(method, pattern, async (call) => {
      if (scope === 'list') requireListScope(call.principal, 'prompts:read');
      else requireScope(call.principal, scope);
      return handler(call, await workspaceOf(call), prompts());
    });
  /** A mutation: the same, inside `audited`, so success and failure both reach the audit log. */
  const mutate = (method: string, pattern: string, action: string, mutation: Mutation) =>
    register(method, pattern, (call) =>
      audited(call, { action, resource_type: 'prompt', resource_id: call.params.promptId }, async () => {
        requireScope(call.principal, 'prompts:write');
        const workspaceId = await workspaceOf(call);
        return { workspace_id: workspaceId, ...(await mutation(call, workspaceId, prompts())) };
      }),
    );

  read('GET', '/v1/prompts/{promptId}/versions', 'list', async (call, workspaceId, service) =>
    jsonResponse(200, await service.listVersions(workspaceId, call.params.promptId, readPageRequest(call.request))),
  );

  read('GET', '/v1/prompts/{promptId}/versions/{version}', 'prompts:read', async (call, workspaceId, service) =>
    jsonResponse(200, await service.getVersion(workspaceId, call.params.promptId, versionParam(call.params.version))),
  );

  mutate('POST', '/v1/prompts/{promptId}/versions/{version}/publish', 'prompt.publish', async (call, workspaceId, service) => {
    const version = versionParam(call.params.version);
    return { value: jsonResponse(200, await service.publish(workspaceId, call.params.promptId, version)), details: { version } };
  });

  mutate('PUT', '/v1/prompts/{promptId}/labels/{label}', 'prompt.label_set', async (call, workspaceId, service) => {
    const { version } = parseJsonBody(call.request, promptLabelSchema);
    const view = await service.setLabel(workspaceId, call.params.promptId, call.params.label, version);
    return { value: jsonResponse(200, view), details: { label: call.params.label, version } };
  });

  mutate('DELETE', '/v1/prompts/{promptId}/labels/{label}', 'prompt.label_remove', async (call, workspaceId, service) => {
    const view = await service.removeLabel(workspaceId, call.params.promptId, call.params.label);
    return { value: jsonResponse(200, view), details: { label: call.params.label } };
  });

  read('POST', '/v1/prompts/{promptId}/render', 'prompts:render', async (call, workspaceId) => {
    const selector = readVersionSelector(call.request.query);
    const { data } = await renderStoredPrompt(workspaceId, call.params.promptId, parseRenderBody(call.request), selector);
    return jsonResponse(200, { success: true, data });
  });
}

function versionParam(value: string): number {
  if (!/^[1-9]\d{0,8}$/.test(value)) throw badRequest('invalid_version', 'version must be a positive integer', 'version');
  return Number(value);
}

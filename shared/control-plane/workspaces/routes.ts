import { jsonResponse } from '../../http/types.js';
import type { RouteRegistrar } from '../handler-types.js';
import { createWorkspace, deleteWorkspace, getWorkspace, listWorkspaces, updateWorkspace } from './service.js';

/** /v1/workspaces: create, list, get (id or slug), update (name, budget, API-key settings), delete. */
export function registerWorkspaceRoutes(register: RouteRegistrar): void {
  register('POST', '/v1/workspaces', async (call) => jsonResponse(201, await createWorkspace(call)));
  register('GET', '/v1/workspaces', async (call) => jsonResponse(200, await listWorkspaces(call)));
  register('GET', '/v1/workspaces/{id}', async (call) => jsonResponse(200, await getWorkspace(call)));
  register('PATCH', '/v1/workspaces/{id}', async (call) => jsonResponse(200, await updateWorkspace(call)));
  register('DELETE', '/v1/workspaces/{id}', async (call) => jsonResponse(200, await deleteWorkspace(call)));
}

import { jsonResponse } from '../../http/types.js';
import type { RouteRegistrar } from '../handler-types.js';
import { rotateApiKey } from './rotation.js';
import { createApiKey, getApiKey, listApiKeys, revokeApiKey, updateApiKey } from './service.js';

/** /v1/api-keys: create (raw key shown once), list, get, update, revoke (DELETE), rotate. */
export function registerApiKeyRoutes(register: RouteRegistrar): void {
  register('POST', '/v1/api-keys', async (call) => jsonResponse(201, await createApiKey(call)));
  register('GET', '/v1/api-keys', async (call) => jsonResponse(200, await listApiKeys(call)));
  register('GET', '/v1/api-keys/{id}', async (call) => jsonResponse(200, await getApiKey(call)));
  register('PATCH', '/v1/api-keys/{id}', async (call) => jsonResponse(200, await updateApiKey(call)));
  register('DELETE', '/v1/api-keys/{id}', async (call) => jsonResponse(200, await revokeApiKey(call)));
  register('POST', '/v1/api-keys/{id}/rotate', async (call) => jsonResponse(200, await rotateApiKey(call)));
}

import { jsonResponse } from '../../http/types.js';
import type { RouteRegistrar } from '../handler-types.js';
import { getUser, inviteUser, listUsers, removeUser, updateUser } from './service.js';

/** /v1/admin/users: list, invite, get, update (role, memberships), remove. Organisation admin keys only. */
export function registerUserRoutes(register: RouteRegistrar): void {
  register('GET', '/v1/admin/users', async (call) => jsonResponse(200, await listUsers(call)));
  register('POST', '/v1/admin/users/invites', async (call) => jsonResponse(201, await inviteUser(call)));
  register('GET', '/v1/admin/users/{id}', async (call) => jsonResponse(200, await getUser(call)));
  register('PATCH', '/v1/admin/users/{id}', async (call) => jsonResponse(200, await updateUser(call)));
  register('DELETE', '/v1/admin/users/{id}', async (call) => jsonResponse(200, await removeUser(call)));
}

import { jsonResponse } from '../../http/types.js';
import { audited } from '../audit.js';
import { requireListScope, requireScope } from '../authorization.js';
import { defineResource } from '../resource/define-resource.js';
import { resourceIdPathSchema } from '../resource/schema-helpers.js';
import { parseJsonBody, validate } from '../../http/json-body.js';
import { presentUser } from './present.js';
import { registerScimIdentityRoutes } from './scim-identities.js';
import { userInviteSchema, userListQuerySchema, userSchema, userUpdateSchema } from './schemas.js';
import { requireUserAdmin, UserService, type UserResult } from './service.js';

const ITEM_PATH = '/v1/admin/users/{id}';

/**
 * Users of the organisation: `GET /v1/admin/users`, `GET|PATCH /v1/admin/users/{id}` and, by hand,
 * `POST /v1/admin/users/invites` (audited `user.invite`) and `DELETE /v1/admin/users/{id}` (audited `user.remove`,
 * answers the keys it revoked). Every route needs an organisation admin key, checked before the scope
 * (users:read|list|write, from the kind). Not documented in detail yet.
 */
export const userResource = defineResource({
  kind: 'user',
  path: '/v1/admin/users',
  tag: 'Admin',
  authorize: {
    list: (principal) => {
      requireUserAdmin(principal);
      requireListScope(principal, 'users:read');
    },
    get: (principal) => {
      requireUserAdmin(principal);
      requireScope(principal, 'users:read');
    },
    update: (principal) => {
      requireUserAdmin(principal);
      requireScope(principal, 'users:write');
    },
  },
  workspace: 'organisation',
  undocumented: true,
  operations: ['list', 'get', 'update'],
  schemas: { create: userInviteSchema, update: userUpdateSchema, view: userSchema, idPath: resourceIdPathSchema('id', 'The user id.'), listQuery: userListQuerySchema },
  service: () => new UserService(),
  present: ({ user }: UserResult) => presentUser(user),
  listFilter: (query) => validate(userListQuerySchema, query),
  audit: {
    created: (invited) => invited.details ?? {},
    // The service says what changed: the memberships as stored, and the keys revoked for workspaces left.
    updated: (_body, updated) => updated.details ?? {},
  },
  docs: {},
  extraRoutes: (register, { service, scopeOf }) => {
    // The identities workspace SCIM keys provisioned, for an organisation admin to see and link.
    registerScimIdentityRoutes(register);
    register('POST', '/v1/admin/users/invites', (call) =>
      audited(call, { action: 'user.invite', resource_type: 'user' }, async () => {
        requireUserAdmin(call.principal);
        requireScope(call.principal, 'users:write');
        const invited = await service().create(await scopeOf(call), parseJsonBody(call.request, userInviteSchema));
        return { value: jsonResponse(201, presentUser(invited.user)), resource_id: invited.id, details: invited.details };
      }),
    );
    // Removing answers the keys it revoked, under its own audit action.
    register('DELETE', ITEM_PATH, (call) =>
      audited(call, { action: 'user.remove', resource_type: 'user', resource_id: call.params.id }, async () => {
        requireUserAdmin(call.principal);
        requireScope(call.principal, 'users:write');
        const removed = await service().delete(await scopeOf(call), call.params.id);
        return {
          value: jsonResponse(200, { object: 'user' as const, id: removed.id, deleted: true as const, revoked_api_keys: removed.revoked ?? [] }),
          resource_id: removed.id,
          details: removed.details,
        };
      }),
    );
  },
});

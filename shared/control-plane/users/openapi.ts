// Documentation only: read by scripts/openapi.ts to write docs/openapi.yaml, never imported by a handler.
import * as z from 'zod';
import type { OpenApiOperation } from '../openapi-operation.js';
import { scimIdentityLinkSchema, scimIdentityListQuerySchema } from './scim-identities.js';

const TAG = 'Admin';
const identitySchema = z.object({
  object: z.literal('scim_identity'),
  id: z.string(),
  workspace_id: z.string(),
  user_name: z.string(),
  email: z.string(),
  external_id: z.string().nullable(),
  active: z.boolean(),
  in_group: z.boolean(),
  status: z.enum(['pending', 'linked']),
  user_id: z.string().nullable(),
  linked_at: z.string().nullable(),
  created_at: z.string(),
  updated_at: z.string(),
});

export const openApiOperations: OpenApiOperation[] = [
  {
    method: 'get',
    path: '/v1/admin/scim-identities',
    operationId: 'listScimIdentities',
    summary: 'List the workspace identities SCIM keys confined to a workspace provisioned',
    description: 'Organisation admins only. `status=pending` lists those not linked to an organisation user yet (they cannot sign in or hold keys); docs/control-plane/scim.md, "Workspace identities".',
    tags: [TAG],
    scopes: ['users:read'],
    query: scimIdentityListQuerySchema,
    responses: { '200': { description: 'The identities, oldest first.', schema: z.object({ object: z.literal('list'), data: z.array(identitySchema) }) } },
    errors: [400, 401, 403],
  },
  {
    method: 'post',
    path: '/v1/admin/scim-identities/{id}/link',
    operationId: 'linkScimIdentity',
    summary: 'Link a workspace identity to an organisation user',
    description:
      'Organisation admins only; audited. Links to the user named, else the one holding its e-mail, else a new user, and grants the workspace membership its group says. Written only over the identity as read: 409 `already_linked` when another link won, 409 `scim_identity_changed` when its IdP changed it meanwhile, 409 `user_already_linked` when the user already stands for another identity of the workspace, 404 when it was removed.',
    tags: [TAG],
    scopes: ['users:write'],
    pathParameters: z.strictObject({ id: z.string() }),
    body: scimIdentityLinkSchema,
    responses: { '200': { description: 'The identity, linked.', schema: identitySchema } },
    errors: [400, 401, 403, 404, 409],
  },
];

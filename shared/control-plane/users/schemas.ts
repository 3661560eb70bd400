import * as z from 'zod';

/**
 * Bodies and responses of /v1/admin/users. Single source of truth: types are inferred from these schemas and
 * docs/openapi.yaml is generated from them (z.toJSONSchema), so they carry no transforms.
 */

export const organisationRoleSchema = z.enum(['owner', 'admin', 'member']).meta({ description: 'Role in the organisation.' });
export const workspaceRoleSchema = z
  .enum(['admin', 'manager', 'member'])
  .meta({ description: 'Role in a workspace; admins and managers may create API keys for other members (user_id).' });
export const userStatusSchema = z.enum(['invited', 'active']);

export const membershipSchema = z
  .strictObject({
    workspace_id: z.string().min(1).max(128).meta({ description: 'Workspace id or slug.' }),
    role: workspaceRoleSchema,
  })
  .meta({ id: 'WorkspaceMembership' });

const membershipsSchema = z
  .array(membershipSchema)
  .max(100)
  .refine((memberships) => new Set(memberships.map((membership) => membership.workspace_id)).size === memberships.length, 'must name each workspace once');

export const userInviteSchema = z
  .strictObject({
    email: z.email().max(254),
    name: z.string().min(1).max(255).optional(),
    role: organisationRoleSchema.optional().meta({ description: 'Defaults to member.' }),
    workspaces: membershipsSchema.optional().meta({ description: 'Workspaces the user joins, each with a role.' }),
  })
  .meta({ id: 'UserInvite' });

export const userUpdateSchema = z
  .strictObject({
    name: z.string().min(1).max(255).optional(),
    role: organisationRoleSchema.optional(),
    status: userStatusSchema.optional().meta({ description: 'Mark an invited user active once they accepted (gw has no sign-in flow of its own).' }),
    workspaces: membershipsSchema.optional().meta({ description: 'Replaces the memberships; leaving a workspace revokes the user’s keys in it.' }),
  })
  .refine((value) => Object.keys(value).length > 0, 'the body must change at least one field')
  .meta({ id: 'UserUpdate' });

export const userListQuerySchema = z.strictObject({
  workspace_id: z.string().min(1).max(128).optional(),
  role: organisationRoleSchema.optional(),
  status: userStatusSchema.optional(),
  limit: z.string().optional(),
  cursor: z.string().optional(),
});

export const userSchema = z
  .object({
    object: z.literal('user'),
    id: z.string(),
    organisation_id: z.string(),
    email: z.string(),
    name: z.string().nullable(),
    role: organisationRoleSchema,
    status: userStatusSchema,
    workspaces: z.array(z.object({ workspace_id: z.string(), role: workspaceRoleSchema })),
    invited_by: z.string().nullable(),
    created_at: z.string(),
    updated_at: z.string().nullable(),
  })
  .meta({ id: 'User' });

export type UserInvite = z.infer<typeof userInviteSchema>;
export type UserUpdate = z.infer<typeof userUpdateSchema>;
export type UserListQuery = z.infer<typeof userListQuerySchema>;
export type User = z.infer<typeof userSchema>;

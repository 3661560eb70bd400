import * as z from 'zod';

/**
 * SCIM 2.0 messages, for docs/openapi.yaml (the routes validate with user-resource.ts, groups.ts and patch.ts,
 * which accept the extra attributes identity providers send). Bodies are application/scim+json.
 */

const meta = z.object({ resourceType: z.string(), created: z.string().optional(), lastModified: z.string().optional(), location: z.string() });

export const scimUserSchema = z
  .object({
    schemas: z.array(z.string()),
    id: z.string().meta({ description: 'The gw organisation user id.' }),
    externalId: z.string().optional(),
    userName: z.string(),
    name: z.object({ givenName: z.string().optional(), familyName: z.string().optional(), formatted: z.string().optional() }).optional(),
    displayName: z.string().optional(),
    emails: z.array(z.object({ value: z.string(), type: z.string().optional(), primary: z.boolean().optional() })),
    active: z.boolean().meta({ description: 'false (PATCH or DELETE) revokes the user’s API keys in every workspace.' }),
    groups: z.array(z.object({ value: z.string(), display: z.string() })).meta({ description: 'Read-only: the SCIM groups (workspaces) the user belongs to.' }),
    meta,
  })
  .meta({ id: 'ScimUser' });

export const scimGroupSchema = z
  .object({
    schemas: z.array(z.string()),
    id: z.string().meta({ description: 'The workspace id.' }),
    externalId: z.string().optional(),
    displayName: z.string(),
    members: z.array(z.object({ value: z.string().meta({ description: 'A User id (answers also carry the member’s $ref URI).' }), type: z.string().optional() })).optional(),
    meta,
  })
  .meta({ id: 'ScimGroup' });

export const scimPatchSchema = z
  .object({
    schemas: z.array(z.literal('urn:ietf:params:scim:api:messages:2.0:PatchOp')),
    Operations: z.array(z.object({ op: z.string().meta({ description: 'add, replace or remove (any case).' }), path: z.string().optional(), value: z.unknown().optional() })),
  })
  .meta({ id: 'ScimPatchOp' });

export const scimListSchema = z
  .object({ schemas: z.array(z.string()), totalResults: z.int(), startIndex: z.int(), itemsPerPage: z.int(), Resources: z.array(z.record(z.string(), z.unknown())) })
  .meta({ id: 'ScimListResponse' });

export const scimErrorSchema = z
  .object({ schemas: z.array(z.string()), status: z.string().meta({ description: 'The HTTP status, as a string.' }), scimType: z.string().optional(), detail: z.string(), code: z.string().meta({ description: 'gw’s own error code.' }) })
  .meta({ id: 'ScimError' });

export const scimListQuerySchema = z.object({
  filter: z.string().optional().meta({ description: 'e.g. userName eq "alice@example.com"; eq, co, sw, and (and the rest of RFC 7644 §3.4.2.2).' }),
  startIndex: z.int().min(1).optional(),
  count: z.int().min(0).max(200).optional(),
  excludedAttributes: z.string().optional().meta({ description: 'members: leave group member lists out.' }),
});

export const scimIdPathSchema = z.object({ id: z.string() });

import * as z from 'zod';

/** The answer of GET /v1/me; its type is inferred from this and docs/openapi.yaml generated. */
export const principalViewSchema = z
  .object({
    object: z.literal('principal'),
    kind: z.enum(['organisation_admin', 'workspace']).meta({ description: 'An organisation admin key (or an admin JWT) or a workspace key (or token).' }),
    type: z.enum(['service', 'user']).meta({ description: 'A service key belongs to an automation; a user key and every JWT to a person.' }),
    auth_method: z.enum(['api_key', 'jwt']),
    key_id: z.string().meta({ description: 'The API key id; `jwt:<sub>` for a JWT.' }),
    user_id: z.string().nullable().meta({ description: 'The user of a user key, or the subject of a JWT.' }),
    organisation_id: z.string(),
    workspace_id: z.string().meta({ description: 'Where the caller works; an admin key’s default workspace.' }),
    scopes: z.array(z.string()).meta({ description: 'Every scope the caller holds, expanded: an admin API key holds them all; a JWT its read/list scopes.' }),
    read_only: z.boolean().meta({ description: 'True for a JWT: every write is refused with 403 jwt_read_only, whatever the scopes.' }),
    role: z.enum(['admin', 'manager', 'member']).nullable().meta({ description: 'The user’s role in the workspace, for a user key whose user is a member; null otherwise.' }),
    expires_at: z.string().nullable(),
  })
  .meta({ id: 'Principal' });

export type PrincipalView = z.infer<typeof principalViewSchema>;

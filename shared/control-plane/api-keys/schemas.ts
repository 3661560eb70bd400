import * as z from 'zod';
import { SCOPES } from '../../auth/scopes.js';
import { metadataSchema } from '../workspaces/schemas.js';

/**
 * Bodies and responses of /v1/api-keys. Single source of truth: types are inferred from these schemas and
 * docs/openapi.yaml is generated from them (z.toJSONSchema), so they carry no transforms.
 */

export const scopeSchema = z.enum(SCOPES).meta({ id: 'ApiKeyScope', description: 'A permission; see the scopes table in docs/control-plane/identities.md.' });

const scopesSchema = z
  .array(scopeSchema)
  .min(1)
  .max(SCOPES.length)
  .refine((scopes) => new Set(scopes).size === scopes.length, 'must not repeat a scope');

const isoTimeSchema = z.iso.datetime({ offset: true }).meta({ description: 'ISO-8601 date-time, e.g. 2026-12-31T00:00:00Z.' });

/** At most a week: longer overlaps defeat the point of rotating. */
export const MAX_TRANSITION_PERIOD_MS = 7 * 24 * 60 * 60 * 1000;
const transitionPeriodSchema = z
  .int()
  .min(0)
  .max(MAX_TRANSITION_PERIOD_MS)
  .meta({ description: 'Milliseconds the previous secret keeps working after a rotation (0 = stops at once, at most 7 days).' });

export const rotationPolicySchema = z
  .strictObject({
    period: z.enum(['weekly', 'monthly', 'custom']).meta({ description: 'How often the secret should be reset; custom uses interval_days.' }),
    interval_days: z.int().min(1).max(365).optional().meta({ description: 'Days between rotations; required with period custom, refused otherwise.' }),
    transition_period_ms: transitionPeriodSchema.optional(),
  })
  .refine((policy) => (policy.period === 'custom') === (policy.interval_days !== undefined), {
    message: 'interval_days is required with period custom and only allowed with it',
    path: ['interval_days'],
  })
  .meta({ id: 'ApiKeyRotationPolicy' });

export const apiKeyCreateSchema = z
  .strictObject({
    name: z.string().min(1).max(255),
    description: z.string().max(1024).optional(),
    kind: z.enum(['workspace', 'admin']).optional().meta({ description: 'workspace (default) or admin (organisation admin key; admin callers only).' }),
    type: z.enum(['service', 'user']).optional().meta({ description: 'service (default) or user; a user key belongs to user_id (default: the calling user).' }),
    workspace_id: z.string().min(1).max(128).optional().meta({ description: 'Workspace id or slug (admin callers); defaults to the caller’s workspace.' }),
    user_id: z.string().min(1).max(128).optional().meta({ description: 'Create a user key on behalf of this member of the workspace (workspace managers and admins).' }),
    scopes: scopesSchema.optional().meta({ description: 'Required for workspace keys; admin keys hold every scope.' }),
    expires_at: isoTimeSchema.nullable().optional().meta({ description: 'Omitted: the workspace default expiry. null: never (only without a workspace maximum).' }),
    rotation_policy: rotationPolicySchema.nullable().optional(),
    metadata: metadataSchema.optional(),
  })
  .meta({ id: 'ApiKeyCreate' });

export const apiKeyUpdateSchema = z
  .strictObject({
    name: z.string().min(1).max(255).optional(),
    description: z.string().max(1024).optional(),
    scopes: scopesSchema.optional(),
    expires_at: isoTimeSchema.nullable().optional(),
    rotation_policy: rotationPolicySchema.nullable().optional(),
    metadata: metadataSchema.optional(),
  })
  .refine((value) => Object.keys(value).length > 0, 'the body must change at least one field')
  .meta({ id: 'ApiKeyUpdate' });

export const apiKeyRotateSchema = z
  .strictObject({
    transition_period_ms: transitionPeriodSchema.optional().meta({ description: 'Defaults to the rotation policy’s, else 0.' }),
  })
  .meta({ id: 'ApiKeyRotate' });

export const apiKeyListQuerySchema = z.strictObject({
  workspace_id: z.string().min(1).max(128).optional(),
  kind: z.enum(['workspace', 'admin']).optional(),
  status: z.enum(['active', 'revoked', 'expired']).optional(),
  user_id: z.string().min(1).max(128).optional(),
  rotation_due: z.enum(['true', 'false']).optional(),
  limit: z.string().optional(),
  cursor: z.string().optional(),
});

export const apiKeySchema = z
  .object({
    object: z.literal('api_key'),
    id: z.string(),
    name: z.string(),
    description: z.string().nullable(),
    kind: z.enum(['workspace', 'admin']),
    type: z.enum(['service', 'user']),
    user_id: z.string().nullable(),
    organisation_id: z.string(),
    workspace_id: z.string(),
    masked: z.string().meta({ description: 'Prefix and last characters of the key; the raw key is only ever returned by create and rotate.' }),
    scopes: z.array(z.string()),
    status: z.enum(['active', 'revoked', 'expired']).meta({ description: 'expired as soon as expires_at has passed, even before the expiry worker runs.' }),
    expires_at: z.string().nullable(),
    rotation_policy: rotationPolicySchema.nullable(),
    next_rotation_at: z.string().nullable(),
    last_rotated_at: z.string().nullable(),
    rotation_due: z.boolean().meta({ description: 'true once next_rotation_at has passed.' }),
    metadata: z.record(z.string(), z.string()),
    created_by: z.string().nullable(),
    created_at: z.string(),
    updated_at: z.string().nullable(),
    revoked_at: z.string().nullable(),
  })
  .meta({ id: 'ApiKey' });

export const apiKeyWithSecretSchema = apiKeySchema
  .extend({
    key: z.string().meta({ description: 'The raw API key. Shown once: store it now; gw keeps only its SHA-256.' }),
    previous_key_expires_at: z.string().nullable().optional().meta({ description: 'Rotate only: when the replaced secret stops working.' }),
  })
  .meta({ id: 'ApiKeyWithSecret' });

export type ApiKeyCreate = z.infer<typeof apiKeyCreateSchema>;
export type ApiKeyUpdate = z.infer<typeof apiKeyUpdateSchema>;
export type ApiKeyRotate = z.infer<typeof apiKeyRotateSchema>;
export type ApiKeyListQuery = z.infer<typeof apiKeyListQuerySchema>;
export type ApiKey = z.infer<typeof apiKeySchema>;
export type ApiKeyWithSecret = z.infer<typeof apiKeyWithSecretSchema>;

import * as z from 'zod';
import { guardrailReferenceListSchema } from '../../guardrails/schemas.js';

/**
 * Bodies and responses of /v1/workspaces. Single source of truth: types are inferred from these schemas and
 * docs/openapi.yaml is generated from them (z.toJSONSchema), so they carry no transforms.
 */

export const workspaceSlugSchema = z
  .string()
  .regex(/^[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$/, 'must be 1-64 lower-case letters, digits or hyphens, not starting or ending with a hyphen')
  .meta({ description: 'Unique inside the organisation; usable wherever a workspace id is.' });

export const metadataSchema = z
  .record(z.string().min(1).max(64), z.string().max(512))
  .refine((value) => Object.keys(value).length <= 32, 'must have at most 32 entries')
  .meta({ description: 'Free string labels (at most 32).' });

export const budgetResetSchema = z.enum(['none', 'weekly', 'monthly']).meta({
  description: 'When usage is reset to 0: never, every Monday 00:00 UTC, or on the 1st of each month 00:00 UTC.',
});

export const budgetInputSchema = z
  .strictObject({
    credit_limit: z
      .number()
      .positive()
      .max(1e12)
      .nullable()
      .optional()
      .meta({ description: 'Spending ceiling in USD (cost as priced by gw); null removes the limit.' }),
    periodic_reset: budgetResetSchema.optional(),
  })
  .meta({ id: 'WorkspaceBudgetInput' });

const expiryDays = z.int().min(1).max(3650);

export const apiKeySettingsSchema = z
  .strictObject({
    max_api_keys: z.int().min(1).max(10_000).nullable().optional().meta({ description: 'Most active workspace keys at once; null for no limit.' }),
    default_expiry_days: expiryDays.nullable().optional().meta({ description: 'Expiry given to a new workspace key that names none.' }),
    max_expiry_days: expiryDays.nullable().optional().meta({ description: 'Latest expiry a workspace key may have, in days from its creation or update.' }),
  })
  .refine(
    (value) => value.default_expiry_days == null || value.max_expiry_days == null || value.default_expiry_days <= value.max_expiry_days,
    { message: 'default_expiry_days must not exceed max_expiry_days', path: ['default_expiry_days'] },
  )
  .meta({ id: 'WorkspaceApiKeySettings' });

/** Guardrails run on every gateway request of the workspace, before a config's own (docs/guardrails.md). */
export const defaultGuardrailsSchema = guardrailReferenceListSchema.meta({
  description: 'Guardrail ids (grd-…, optionally @<version>) run on every gateway request of the workspace; [] removes them. Changing it needs guardrails:write.',
});

/** What a request to a model without a price does while a cost limit applies (docs/enforcement.md). */
export const unpricedModelsSchema = z.enum(['reserve', 'refuse']).meta({
  description: 'A model no pricing source prices, under a cost limit (budget, cost usage limit, provider budget): reserve and charge it at the default rates ($15/$75 per million tokens; the default), or refuse it with 400 unpriced_model.',
});

/** Observability settings (docs/observability.md); each is on unless set to false. */
export const workspaceSettingsSchema = z
  .strictObject({
    log_request_bodies: z.boolean().optional().meta({ description: 'Keep request and response bodies (redacted, size-capped) in request logs.' }),
    membersViewAnalytics: z.boolean().optional().meta({ description: 'Members’ own keys and tokens may read GET /v1/analytics.' }),
    managersViewAnalytics: z.boolean().optional().meta({ description: 'Managers’ own keys and tokens may read GET /v1/analytics.' }),
    unpriced_models: unpricedModelsSchema.optional(),
  })
  .meta({ id: 'WorkspaceSettingsInput' });

export const workspaceCreateSchema = z
  .strictObject({
    name: z.string().min(1).max(255),
    slug: workspaceSlugSchema.optional().meta({ description: 'Defaults to one derived from the name.' }),
    description: z.string().max(1024).optional(),
    metadata: metadataSchema.optional(),
    budget: budgetInputSchema.optional(),
    api_key_settings: apiKeySettingsSchema.optional(),
  })
  .meta({ id: 'WorkspaceCreate' });

export const workspaceUpdateSchema = z
  .strictObject({
    name: z.string().min(1).max(255).optional(),
    description: z.string().max(1024).optional(),
    metadata: metadataSchema.optional(),
    budget: budgetInputSchema.optional(),
    api_key_settings: apiKeySettingsSchema.optional(),
    default_guardrails: defaultGuardrailsSchema.optional(),
    settings: workspaceSettingsSchema.optional(),
  })
  .refine((value) => Object.keys(value).length > 0, 'the body must change at least one field')
  .meta({ id: 'WorkspaceUpdate' });

export const workspaceListQuerySchema = z.strictObject({
  limit: z.string().optional(),
  cursor: z.string().optional(),
});

export const workspaceDeleteQuerySchema = z.strictObject({
  force: z.enum(['true', 'false']).optional().meta({ description: 'true: revoke the workspace keys and remove its members first.' }),
});

export const workspaceBudgetSchema = z
  .object({
    credit_limit: z.number().nullable(),
    periodic_reset: budgetResetSchema,
    current_usage: z.number().nullable().meta({ description: 'Spent since the last reset (USD), written by the gateway; null for callers the workspace keeps from usage (membersViewAnalytics / managersViewAnalytics).' }),
    status: z.enum(['active', 'exhausted']).meta({ description: 'exhausted once usage reaches the limit; raising the limit above usage makes it active at once.' }),
    last_reset_at: z.string().nullable(),
    next_reset_at: z.string().nullable(),
  })
  .meta({ id: 'WorkspaceBudget' });

export const workspaceSchema = z
  .object({
    object: z.literal('workspace'),
    id: z.string(),
    organisation_id: z.string(),
    name: z.string(),
    slug: z.string(),
    description: z.string().nullable(),
    metadata: z.record(z.string(), z.string()),
    budget: workspaceBudgetSchema,
    api_key_settings: z.object({
      max_api_keys: z.number().nullable(),
      default_expiry_days: z.number().nullable(),
      max_expiry_days: z.number().nullable(),
    }),
    active_api_keys: z.number(),
    default_guardrails: z.array(z.string()),
    settings: z.object({ log_request_bodies: z.boolean(), membersViewAnalytics: z.boolean(), managersViewAnalytics: z.boolean(), unpriced_models: unpricedModelsSchema }),
    created_at: z.string(),
    updated_at: z.string().nullable(),
  })
  .meta({ id: 'Workspace' });

export type WorkspaceCreate = z.infer<typeof workspaceCreateSchema>;
export type WorkspaceUpdate = z.infer<typeof workspaceUpdateSchema>;
export type Workspace = z.infer<typeof workspaceSchema>;

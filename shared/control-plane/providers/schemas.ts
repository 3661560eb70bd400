import * as z from 'zod';
import { workspaceQueryField } from '../query-schemas.js';
import { tagsQueryField, tagsSchema } from '../integrations/tags.js';
import { resourceDeletedSchema, resourceIdPathSchema, resourceListSchema } from '../resource/schema-helpers.js';

/**
 * Bodies and responses of /v1/providers: a workspace's enablement of an integration, with an optional model
 * allowlist, budget and rate limits. Requests select one with `x-gw-provider: @<slug>`.
 */

const slug = z
  .string()
  .min(1)
  .max(255)
  .regex(/^[a-z0-9][a-z0-9_-]*$/, 'must be lower-case letters, digits, "-" and "_", starting with a letter or digit');

export const providerBudgetSchema = z
  .strictObject({
    limit_usd: z.number().positive().max(1e9),
    period: z.enum(['none', 'weekly', 'monthly']).default('monthly').meta({ description: 'When spending starts again from zero (UTC); none: never.' }),
  })
  .meta({ id: 'ProviderBudget', description: 'USD this provider may spend (priced usage); past it requests get 412.' });

export const providerRateLimitSchema = z
  .strictObject({
    type: z.enum(['requests', 'tokens']),
    unit: z.enum(['rpm', 'rph', 'rpd']),
    value: z.int().min(1).max(1e12),
  })
  .meta({ id: 'ProviderRateLimit' });

const models = z.array(z.string().min(1).max(255)).max(500).meta({ description: 'Models requests may use through this provider; empty or absent: every model.' });
const rateLimits = z
  .array(providerRateLimitSchema)
  .max(6)
  .refine((limits) => new Set(limits.map((limit) => `${limit.type}:${limit.unit}`)).size === limits.length, 'one limit per type and unit');

export const providerCreateSchema = z
  .strictObject({
    integration_id: z.string().min(1).max(255).meta({ description: 'The integration (id or slug) to enable; it must be shared with the workspace.' }),
    name: z.string().min(1).max(255).optional().meta({ description: 'Defaults to the integration’s name.' }),
    slug: slug.optional().meta({ description: 'Unique in the workspace; defaults to the integration’s slug. Sent as x-gw-provider: @<slug>.' }),
    description: z.string().max(1024).optional(),
    models: models.optional(),
    budget: providerBudgetSchema.optional(),
    rate_limits: rateLimits.optional(),
    enabled: z.boolean().optional().meta({ description: 'Defaults to true; a disabled provider refuses requests.' }),
    tags: tagsSchema.optional(),
  })
  .meta({ id: 'ProviderCreate' });

export const providerUpdateSchema = z
  .strictObject({
    name: z.string().min(1).max(255).optional(),
    slug: slug.optional(),
    description: z.string().max(1024).nullable().optional(),
    models: models.optional(),
    budget: providerBudgetSchema.nullable().optional(),
    rate_limits: rateLimits.optional(),
    enabled: z.boolean().optional(),
    tags: tagsSchema.optional(),
  })
  .refine((body) => Object.keys(body).length > 0, 'send at least one field to change')
  .meta({ id: 'ProviderUpdate' });

export const providerSchema = z
  .object({
    object: z.literal('provider'),
    id: z.string(),
    workspace_id: z.string(),
    integration_id: z.string(),
    provider: z.string().meta({ description: 'The integration’s provider slug.' }),
    name: z.string(),
    slug: z.string(),
    description: z.string().optional(),
    models: z.array(z.string()),
    budget: z.object({ limit_usd: z.number(), period: z.enum(['none', 'weekly', 'monthly']) }).optional(),
    rate_limits: z.array(providerRateLimitSchema),
    enabled: z.boolean(),
    tags: z.record(z.string(), z.string()),
    set_by: z.enum(['organisation', 'workspace']).meta({ description: 'organisation: an organisation admin key set its limits (budget, rate_limits, models, enabled); a workspace key may tighten them, never loosen them.' }),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .meta({ id: 'Provider' });

export const providerListSchema = resourceListSchema(providerSchema, 'ProviderList');

export const providerDeletedSchema = resourceDeletedSchema('provider', 'ProviderDeleted');

export const providerWorkspaceQuerySchema = z.object({ workspace_id: workspaceQueryField });

export const providerListQuerySchema = z.object({
  tags: tagsQueryField,
  limit: z.int().min(1).max(100).optional(),
  cursor: z.string().optional(),
  workspace_id: workspaceQueryField,
});

export const providerIdPathSchema = resourceIdPathSchema('providerId', 'Provider id or slug.');

export type ProviderCreate = z.infer<typeof providerCreateSchema>;
export type ProviderUpdate = z.infer<typeof providerUpdateSchema>;
export type ProviderView = z.infer<typeof providerSchema>;

import * as z from 'zod';
import {
  addPrefixConfigSchema,
  allowedRequestTypesConfigSchema,
  GUARDRAIL_TYPES,
  requestParamsCheckConfigSchema,
} from '../../guardrails/schemas.js';

/**
 * Bodies and responses of /v1/guardrails. The config shapes are the pipeline's own (shared/guardrails/schemas.ts),
 * so what the API accepts is exactly what the gateway runs.
 */

const nameSchema = z.string().min(1).max(255);

export const guardrailCreateSchema = z
  .discriminatedUnion('type', [
    z.strictObject({ name: nameSchema, type: z.literal('request_params_check'), config: requestParamsCheckConfigSchema }),
    z.strictObject({ name: nameSchema, type: z.literal('add_prefix'), config: addPrefixConfigSchema }),
    z.strictObject({ name: nameSchema, type: z.literal('allowed_request_types'), config: allowedRequestTypesConfigSchema }),
  ])
  .meta({ id: 'GuardrailCreate' });

/** `PUT /v1/guardrails/{id}`: a new version. `type` defaults to the current one; `config` is checked against it. */
export const guardrailUpdateSchema = z
  .strictObject({
    name: nameSchema.optional(),
    type: z.enum(GUARDRAIL_TYPES).optional(),
    config: z.record(z.string(), z.unknown()),
  })
  .meta({ id: 'GuardrailUpdate' });

export const guardrailSchema = z
  .object({
    id: z.string().meta({ description: 'grd-…; name it in a config\'s input_guardrails or the workspace\'s default_guardrails (optionally "@<version>").' }),
    object: z.literal('guardrail'),
    name: z.string(),
    type: z.enum(GUARDRAIL_TYPES),
    config: z.record(z.string(), z.unknown()),
    version: z.int(),
    workspace_id: z.string(),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .meta({ id: 'Guardrail' });

export const guardrailListSchema = z
  .object({ object: z.literal('list'), data: z.array(guardrailSchema), has_more: z.boolean(), next_cursor: z.string().nullable() })
  .meta({ id: 'GuardrailList' });

export const guardrailVersionListSchema = z
  .object({
    object: z.literal('list'),
    data: z.array(z.object({ object: z.literal('guardrail_version'), id: z.string(), name: z.string(), type: z.enum(GUARDRAIL_TYPES), version: z.int(), config: z.record(z.string(), z.unknown()), created_at: z.string() })),
    has_more: z.boolean(),
    next_cursor: z.null(),
  })
  .meta({ id: 'GuardrailVersionList' });

export const guardrailDeletedSchema = z.object({ id: z.string(), object: z.literal('guardrail'), deleted: z.literal(true) }).meta({ id: 'GuardrailDeleted' });

export const guardrailIdPathSchema = z.object({ guardrailId: z.string().meta({ description: 'The guardrail id (grd-…).' }) });

export const guardrailGetQuerySchema = z.object({
  version: z.int().min(1).optional().meta({ description: 'An earlier version (default: the latest).' }),
  workspace_id: z.string().optional().meta({ description: 'Another workspace of the organisation (organisation admin keys only).' }),
});

export type GuardrailCreate = z.infer<typeof guardrailCreateSchema>;
export type GuardrailUpdate = z.infer<typeof guardrailUpdateSchema>;

import * as z from 'zod';
import { GUARDRAIL_REFERENCE } from './reference.js';

export { GUARDRAIL_REFERENCE } from './reference.js';

/**
 * The guardrail kinds and their config shapes: the single source of truth for `/v1/guardrails` bodies, the
 * stored records and docs/openapi.yaml. Objects are strict, so a misspelt key is refused instead of silently
 * guarding nothing.
 */

export const GUARDRAIL_TYPES = ['request_params_check', 'add_prefix', 'allowed_request_types'] as const;
export type GuardrailType = (typeof GUARDRAIL_TYPES)[number];

/** The names `allowed_request_types` uses for the inbound endpoints (a prompt completion is a chat completion). */
export const REQUEST_TYPE_NAMES = [
  'chat/completions',
  'completions',
  'embeddings',
  'responses',
  'messages',
  // The pass-through endpoints (shared/gateway/passthrough/), named by their path under /v1 as well.
  'images/generations',
  'images/edits',
  'audio/speech',
  'audio/transcriptions',
  'audio/translations',
  'moderations',
  'rerank',
  // Entry points that forward no completion but still obey the rule: token counting and the MCP gateway.
  'messages/count_tokens',
  'mcp',
] as const;
export type RequestTypeName = (typeof REQUEST_TYPE_NAMES)[number];

const names = z.array(z.string().min(1).max(256)).max(500);
const valueList = z.array(z.unknown()).max(500);

/** `params.values.<key>`: the values one request parameter may (or may not) take. */
export const paramValueRuleSchema = z
  .strictObject({
    blockedValues: valueList.optional().meta({ description: 'A request whose value (or, for an array value, any element) equals one of these is denied.' }),
    allowedValues: valueList.optional().meta({ description: 'The value (or every element of an array value) must equal one of these.' }),
  })
  .meta({ id: 'GuardrailParamValueRule' });

export const requestParamsCheckConfigSchema = z
  .strictObject({
    tools: z
      .strictObject({
        blockedTypes: names.optional(),
        allowedTypes: names.optional(),
        blockedFunctionNames: names.optional(),
        allowedFunctionNames: names.optional(),
      })
      .optional(),
    params: z
      .strictObject({
        blockedKeys: names.optional(),
        allowedKeys: names.optional(),
        values: z.record(z.string().min(1).max(256), paramValueRuleSchema).optional().meta({ description: 'Keyed by parameter name or dotted path (e.g. "reasoning.effort").' }),
      })
      .optional(),
  })
  .meta({ id: 'RequestParamsCheckConfig' });

export const addPrefixConfigSchema = z
  .strictObject({
    prefix: z.string().min(1).max(20_000),
    position: z.enum(['first_user', 'last_user']).optional().meta({ description: 'Which user message gets the prefix (default last_user).' }),
  })
  .meta({ id: 'AddPrefixConfig' });

export const allowedRequestTypesConfigSchema = z
  .strictObject({
    mode: z.enum(['allow', 'block']),
    endpoints: z.array(z.enum(REQUEST_TYPE_NAMES)).min(1),
  })
  .meta({ id: 'AllowedRequestTypesConfig' });

export type RequestParamsCheckConfig = z.infer<typeof requestParamsCheckConfigSchema>;
export type AddPrefixConfig = z.infer<typeof addPrefixConfigSchema>;
export type AllowedRequestTypesConfig = z.infer<typeof allowedRequestTypesConfigSchema>;

/** A guardrail's kind and its config, checked together so the config is read with its kind's schema. */
export const guardrailDefinitionSchema = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('request_params_check'), config: requestParamsCheckConfigSchema }),
  z.strictObject({ type: z.literal('add_prefix'), config: addPrefixConfigSchema }),
  z.strictObject({ type: z.literal('allowed_request_types'), config: allowedRequestTypesConfigSchema }),
]);

export type GuardrailDefinition = z.infer<typeof guardrailDefinitionSchema>;

/** A guardrail as the pipeline runs it. */
export type Guardrail = GuardrailDefinition & { id: string; name: string; version: number };


export const guardrailReferenceSchema = z.string().regex(GUARDRAIL_REFERENCE, 'must be a guardrail id such as "grd-abc123" (optionally "@<version>")');

/** At most this many guardrails may be named in one list (a config node, or the workspace defaults). */
export const MAX_GUARDRAILS_PER_LIST = 20;

export const guardrailReferenceListSchema = z.array(guardrailReferenceSchema).max(MAX_GUARDRAILS_PER_LIST);

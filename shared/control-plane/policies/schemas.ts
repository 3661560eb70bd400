import * as z from 'zod';
import {
  CREDIT_LIMIT_TYPES,
  PERIODIC_RESETS,
  POLICY_ENFORCEMENTS,
  POLICY_KINDS,
  POLICY_STATUSES,
  POLICY_TYPES,
  POLICY_UNITS,
} from '../../store/policy-values.js';

/** The keys a condition or group_by entry may name; `metadata.<key>` stands for any request metadata key. */
export const POLICY_KEYS = ['api_key', 'workspace_id', 'virtual_key', 'provider', 'integration', 'model', 'metadata.<key>'] as const;
const ALLOWED_KEYS_TEXT = POLICY_KEYS.join(', ');
const POLICY_KEY_PATTERN = /^(?:api_key|workspace_id|virtual_key|provider|integration|model|metadata\.\S{1,128})$/;
/** A condition value of `*` matches any value of its key. */
export const MATCH_ANY = '*';
export const MAX_POLICY_NAME_LENGTH = 255;
const MAX_CONDITION_VALUE_LENGTH = 255;

/** An error map that tells a missing value from a wrong one, so every message says what to send. */
const missingOr =
  (missing: string, invalid: string) =>
  (issue: { input?: unknown }): string =>
    issue.input === undefined ? missing : invalid;

const oneOf = (values: readonly string[]) => `must be one of: ${values.join(', ')}`;

export const policyKeySchema = z
  .string({ error: missingOr(`is required (one of: ${ALLOWED_KEYS_TEXT})`, 'must be a string') })
  .regex(POLICY_KEY_PATTERN, { error: (issue) => `unknown key ${JSON.stringify(issue.input)}; allowed keys: ${ALLOWED_KEYS_TEXT}` })
  .meta({ description: `What a request is matched or grouped by: ${ALLOWED_KEYS_TEXT} (metadata.<key> names a key of x-gw-metadata, e.g. metadata._user).` });

export const policyConditionSchema = z
  .strictObject(
    {
      key: policyKeySchema,
      value: z
        .string({ error: missingOr('is required (a string; * matches any value)', 'must be a string') })
        .min(1, 'must not be empty (use * to match any value)')
        .max(MAX_CONDITION_VALUE_LENGTH, `must be at most ${MAX_CONDITION_VALUE_LENGTH} characters`)
        .meta({
          description:
            'The value to match, or * for any value. api_key takes an API key id; workspace_id a workspace id or slug; provider a provider kind (openai) or a workspace provider as @<slug> (@team-openai); integration an integration slug or id.',
        }),
    },
    { error: unexpectedFieldsOr('must be an object {key, value}', undefined, ['key', 'value']) },
  )
  .meta({ description: 'Which requests a policy applies to. All conditions of a policy must match.' });

export const policyGroupBySchema = z
  .strictObject({ key: policyKeySchema }, { error: unexpectedFieldsOr('must be an object {key}', undefined, ['key']) })
  .meta({ description: 'A key usage is counted by: one counter per distinct value of every group_by key.' });

const conditionsSchema = z
  .array(policyConditionSchema, { error: missingOr('is required (an array of at least 1 {key, value} condition)', 'must be an array of {key, value} conditions') })
  .min(1, 'must contain at least 1 condition')
  .superRefine((conditions, context) => rejectDuplicateKeys(conditions, context, 'condition'));

const groupBySchema = z
  .array(policyGroupBySchema, { error: missingOr('is required (an array of at least 1 {key})', 'must be an array of {key} objects') })
  .min(1, 'must contain at least 1 key')
  .superRefine((groups, context) => rejectDuplicateKeys(groups, context, 'group_by'));

const typeSchema = z.enum(POLICY_TYPES, { error: missingOr(`is required (${POLICY_TYPES.join(' or ')})`, oneOf(POLICY_TYPES)) });
const unitSchema = z
  .enum(POLICY_UNITS, { error: missingOr(`is required (${POLICY_UNITS.join(', ')})`, oneOf(POLICY_UNITS)) })
  .meta({ description: 'rpm: per minute, rph: per hour, rpd: per day.' });
const valueSchema = z
  .number({ error: missingOr('is required (a number greater than 0)', 'must be a number') })
  .positive('must be a number greater than 0')
  .meta({ description: 'The limit: requests or tokens per unit of time.' });
const nameSchema = z
  .string({ error: 'must be a string' })
  .max(MAX_POLICY_NAME_LENGTH, `must be at most ${MAX_POLICY_NAME_LENGTH} characters`);

export const creditLimitSchema = z
  .strictObject(
    {
      type: z.enum(CREDIT_LIMIT_TYPES, { error: missingOr(`is required (${CREDIT_LIMIT_TYPES.join(' or ')})`, oneOf(CREDIT_LIMIT_TYPES)) }),
      value: z.number({ error: missingOr('is required (a number greater than 0)', 'must be a number') }).positive('must be a number greater than 0'),
    },
    { error: unexpectedFieldsOr('must be an object {type, value}', 'is required for a usage limit: {type: cost|tokens, value > 0}', ['type', 'value']) },
  )
  .meta({ description: 'The budget of a usage limit: cost in USD, or a number of tokens.' });

const periodicResetSchema = z
  .enum(PERIODIC_RESETS, { error: oneOf(PERIODIC_RESETS) })
  .meta({ description: 'When the usage counted against the credit limit starts again from zero.' });

/** Only needed when the call is not authenticated by an API key; an API key brings its own. */
const scopeFields = {
  workspace_id: z
    .string({ error: 'must be a string (a workspace id or slug)' })
    .min(1, 'must not be empty')
    .max(255, 'must be at most 255 characters')
    .optional()
    .meta({ description: 'Workspace id or slug. Defaults to the API key’s workspace; an organisation admin key may name another workspace of its organisation.' }),
  organisation_id: z
    .uuid({ error: 'must be a UUID' })
    .optional()
    .meta({ description: 'Organisation id (UUID). Defaults to the API key’s organisation.' }),
};

const enforcementSchema = z
  .enum(POLICY_ENFORCEMENTS, { error: oneOf(POLICY_ENFORCEMENTS) })
  .meta({
    description:
      'How a tokens or credit limit holds under concurrency. `reserve` (default): admission reserves the request’s estimated maximum (prompt tokens + max_tokens, or its price) and settlement replaces it with the real amount, so concurrent requests overshoot by at most one request’s estimate error. `soft`: estimate-free, only the usage already settled is checked, so concurrent requests may all pass.',
  });

const ruleFields = { conditions: conditionsSchema, group_by: groupBySchema, type: typeSchema, unit: unitSchema, value: valueSchema, enforcement: enforcementSchema.optional() };

const createRateLimitShape = { ...ruleFields, name: nameSchema.optional(), ...scopeFields };
const createUsageLimitShape = { ...ruleFields, credit_limit: creditLimitSchema, periodic_reset: periodicResetSchema.default('none'), name: nameSchema.optional(), ...scopeFields };

export const createRateLimitPolicySchema = z
  .strictObject(createRateLimitShape, { error: unexpectedFieldsOr('must be a JSON object', undefined, Object.keys(createRateLimitShape)) })
  .meta({ description: 'Creates a rate-limit policy.' });

export const createUsageLimitPolicySchema = z
  .strictObject(createUsageLimitShape, { error: unexpectedFieldsOr('must be a JSON object', undefined, Object.keys(createUsageLimitShape)) })
  .meta({ description: 'Creates a usage-limit policy: the spec’s payload plus a credit limit and a periodic reset.' });

const atLeastOneField = (fields: string[]) => ({
  error: `must change at least one field: ${fields.join(', ')}`,
});
const RATE_LIMIT_UPDATABLE = ['name', 'conditions', 'group_by', 'type', 'unit', 'value', 'enforcement'];
const USAGE_LIMIT_UPDATABLE = [...RATE_LIMIT_UPDATABLE, 'credit_limit', 'periodic_reset'];

/** The fields both policy kinds can change; usage limits add their credit limit and reset. */
const updatableRateLimitFields = {
  name: nameSchema.optional(),
  conditions: conditionsSchema.optional(),
  group_by: groupBySchema.optional(),
  type: typeSchema.optional(),
  unit: unitSchema.optional(),
  value: valueSchema.optional(),
  enforcement: enforcementSchema.optional(),
};

export const updateRateLimitPolicySchema = z
  .strictObject(
    updatableRateLimitFields,
    { error: unexpectedFieldsOr('must be a JSON object', undefined, RATE_LIMIT_UPDATABLE) },
  )
  .refine((body) => Object.keys(body).length > 0, atLeastOneField(RATE_LIMIT_UPDATABLE))
  .meta({ description: 'Changes a rate-limit policy: only the fields sent change. The workspace and organisation cannot change.' });

export const updateUsageLimitPolicySchema = z
  .strictObject(
    {
      ...updatableRateLimitFields,
      credit_limit: creditLimitSchema.optional(),
      periodic_reset: periodicResetSchema.optional(),
    },
    { error: unexpectedFieldsOr('must be a JSON object', undefined, USAGE_LIMIT_UPDATABLE) },
  )
  .refine((body) => Object.keys(body).length > 0, atLeastOneField(USAGE_LIMIT_UPDATABLE))
  .meta({ description: 'Changes a usage-limit policy: only the fields sent change. The workspace and organisation cannot change.' });

export const policyCreatedSchema = z
  .object({ id: z.uuid(), object: z.literal('policy_usage_limits') })
  .meta({ description: 'The created policy’s id; `object` is the resource type of every policy.' });

export const policySchema = z
  .object({
    id: z.uuid(),
    object: z.literal('policy_usage_limits'),
    kind: z.enum(POLICY_KINDS),
    name: z.string().nullable(),
    conditions: z.array(z.object({ key: z.string(), value: z.string() })),
    group_by: z.array(z.object({ key: z.string() })),
    type: z.enum(POLICY_TYPES),
    unit: z.enum(POLICY_UNITS),
    value: z.number(),
    enforcement: z.enum(POLICY_ENFORCEMENTS),
    credit_limit: z.object({ type: z.enum(CREDIT_LIMIT_TYPES), value: z.number() }).nullable(),
    periodic_reset: z.enum(PERIODIC_RESETS).nullable(),
    status: z.enum(POLICY_STATUSES),
    set_by: z.enum(['organisation', 'workspace']).meta({ description: 'organisation: created with an organisation admin key; a workspace key may lower its value, never change, raise or archive it otherwise.' }),
    workspace_id: z.string(),
    organisation_id: z.string(),
    created_at: z.iso.datetime(),
    updated_at: z.iso.datetime(),
    archived_at: z.iso.datetime().nullable(),
    version: z.int().positive(),
  })
  .meta({ description: 'A stored policy. credit_limit and periodic_reset are null on rate limits. Archived policies stay readable and are skipped by enforcement.' });

const pageFields = {
  object: z.literal('list'),
  has_more: z.boolean(),
  next_cursor: z.string().nullable().meta({ description: 'Pass as `cursor` for the next page; null on the last page.' }),
};

export const policyListSchema = z.object({ ...pageFields, data: z.array(policySchema) });

export const listPoliciesQuerySchema = z.object({
  limit: z.int().min(1).max(100).optional().meta({ description: 'Page size, 1-100 (default 20).' }),
  cursor: z.string().optional().meta({ description: 'next_cursor of the previous page.' }),
  workspace_id: z
    .string()
    .min(1, 'must not be empty')
    .max(255, 'must be at most 255 characters')
    .optional()
    .meta({ description: 'Only this workspace (id or slug). Without it a workspace key lists its workspace and an admin key its whole organisation.' }),
  status: z.enum(POLICY_STATUSES, { error: oneOf(POLICY_STATUSES) }).optional().meta({ description: 'Only active or only archived policies.' }),
});

const linkedPolicySchema = z.object({ id: z.uuid(), kind: z.enum(POLICY_KINDS), name: z.string().nullable(), status: z.enum(POLICY_STATUSES) });
const linkedPolicies = z.array(linkedPolicySchema).meta({ description: 'The policies whose conditions name this entity.' });

export const policyEntitySchema = z
  .discriminatedUnion('type', [
    z.object({
      object: z.literal('policy_entity'),
      type: z.literal('api_key'),
      id: z.string(),
      name: z.string().nullable(),
      masked: z.string().nullable(),
      workspace_id: z.string().nullable(),
      status: z.enum(['active', 'revoked', 'expired']).nullable().meta({ description: 'The key’s status, or null when the key no longer exists.' }),
      policies: linkedPolicies,
    }),
    z.object({
      object: z.literal('policy_entity'),
      type: z.literal('workspace'),
      id: z.string(),
      name: z.string().nullable(),
      slug: z.string().nullable(),
      policies: linkedPolicies,
    }),
    z.object({
      object: z.literal('policy_entity'),
      type: z.literal('user'),
      id: z.string().meta({ description: 'The metadata._user value the policy matches.' }),
      policies: linkedPolicies,
    }),
  ])
  .meta({ description: 'An API key, workspace or user that a policy condition names.' });

export const policyEntityListSchema = z.object({ ...pageFields, data: z.array(policyEntitySchema) });

export const listPolicyEntitiesQuerySchema = listPoliciesQuerySchema.pick({ limit: true, cursor: true, workspace_id: true });

export const policyIdPathSchema = z.object({ id: z.uuid().meta({ description: 'The policy id.' }) });

export type CreateRateLimitPolicy = z.infer<typeof createRateLimitPolicySchema>;
export type CreateUsageLimitPolicy = z.infer<typeof createUsageLimitPolicySchema>;
export type UpdateRateLimitPolicy = z.infer<typeof updateRateLimitPolicySchema>;
export type UpdateUsageLimitPolicy = z.infer<typeof updateUsageLimitPolicySchema>;
export type PolicyResponse = z.infer<typeof policySchema>;
export type PolicyEntity = z.infer<typeof policyEntitySchema>;

function rejectDuplicateKeys(entries: Array<{ key: string }>, context: z.RefinementCtx, what: string): void {
  const seen = new Set<string>();
  entries.forEach((entry, index) => {
    if (seen.has(entry.key)) {
      context.addIssue({ code: 'custom', path: [index, 'key'], message: `duplicate ${what} key ${JSON.stringify(entry.key)}; each key may appear once` });
    }
    seen.add(entry.key);
  });
}

/** Names unknown fields (with the allowed ones when given) instead of zod's generic message. */
function unexpectedFieldsOr(invalid: string, missing = invalid, allowed?: string[]) {
  return (issue: { code?: string; input?: unknown; keys?: string[] }): string => {
    if (issue.code === 'unrecognized_keys') {
      const names = (issue.keys ?? []).map((key) => JSON.stringify(key)).join(', ');
      return `unknown field ${names}${allowed ? `; allowed fields: ${allowed.join(', ')}` : ''}`;
    }
    return issue.input === undefined ? missing : invalid;
  };
}

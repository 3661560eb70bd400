import type { z } from 'zod';
import { hasScope, type Principal } from '../../auth/principal.js';
import { GatewayError } from '../../http/errors.js';
import type { PolicyKind } from '../../store/policy-repository.js';
import type { FeatureFlag } from '../feature-flags.js';
import { readPageRequest } from '../pagination.js';
import { defineResource, readWriteScopes } from '../resource/define-resource.js';
import { validate } from '../../http/json-body.js';
import { PolicyKindService } from './policy-kind-service.js';
import { POLICY_KIND_LABELS, POLICY_OBJECT, toPolicyResponse } from './policy-presenter.js';
import type { CreatePolicyInput, PolicyListQuery, UpdatePolicyInput } from './policy-service.js';
import {
  createRateLimitPolicySchema,
  createUsageLimitPolicySchema,
  listPoliciesQuerySchema,
  policyCreatedSchema,
  policyIdPathSchema,
  policyListSchema,
  policySchema,
  updateRateLimitPolicySchema,
  updateUsageLimitPolicySchema,
} from './schemas.js';

// Query validation leaves `limit` and `cursor` to the shared pagination reader.
const listQuerySchema = listPoliciesQuerySchema.omit({ limit: true, cursor: true });

/** Lists accept `policies:read` or the narrower `policies:list` (what a JWT's `list` grant becomes). */
export function requirePolicyListScope(principal: Principal): void {
  if (hasScope(principal, 'policies:read') || hasScope(principal, 'policies:list')) return;
  throw new GatewayError(403, 'missing_scope', 'This API key lacks the policies:read (or policies:list) scope');
}

interface PolicyKindOptions<Create extends z.ZodType<CreatePolicyInput>, Update extends z.ZodType<UpdatePolicyInput>> {
  kind: PolicyKind;
  /** In operationIds: `createRateLimitPolicy`, `listRateLimitPolicies`. */
  title: string;
  titles: string;
  flags: readonly FeatureFlag[];
  create: Create;
  update: Update;
}

/**
 * The policies of one kind: `POST|GET /v1/policies/<kind>`, `GET|PUT /v1/policies/<kind>/{id}` and the action
 * `POST /v1/policies/<kind>/{id}/archive` (no delete: an archived policy stays readable). Every route is gated by
 * the kind's flags; every change is audited as `policy.<verb>` under the policy's workspace. A create answers
 * `{ id, object }` only. Who sees which policy is the policy service's decision (policy-scope.ts).
 */
function policyResource<Create extends z.ZodType<CreatePolicyInput>, Update extends z.ZodType<UpdatePolicyInput>>(options: PolicyKindOptions<Create, Update>) {
  const { kind, title, titles } = options;
  const { path: segment, label } = POLICY_KIND_LABELS[kind];
  const plural = label.replace('policy', 'policies');
  return defineResource({
    kind: 'policy',
    path: `/v1/policies/${segment}`,
    names: { singular: label, plural, operation: title, operations: titles },
    tag: 'Policies',
    scopes: readWriteScopes('policies'),
    authorize: { list: requirePolicyListScope },
    workspace: 'organisation',
    featureFlags: options.flags,
    operations: ['create', 'list', 'get', 'update'],
    updateMethods: ['PUT'],
    schemas: { create: options.create, update: options.update, view: policySchema, list: policyListSchema, idPath: policyIdPathSchema, listQuery: listPoliciesQuerySchema },
    service: () => new PolicyKindService(kind),
    present: toPolicyResponse,
    presentCreated: (policy) => ({ id: policy.id, object: POLICY_OBJECT }),
    // The page is read first: a bad limit or cursor has always been reported before a bad filter.
    listFilter: (query, call): PolicyListQuery => {
      readPageRequest(call.request);
      return validate(listQuerySchema, query);
    },
    audit: {
      workspaceOf: (policy) => policy.workspace_id,
      created: (policy) => ({ kind, name: policy.name ?? null }),
      updated: (body) => ({ kind, fields: Object.keys(body as object).sort() }),
    },
    docs: {
      create: {
        summary: `Create a ${label}`,
        description:
          'Conditions (all must match) choose the requests the policy applies to; group_by keys say how usage is counted. ' +
          'workspace_id and organisation_id default to the API key’s; a workspace key naming another workspace gets a 404.',
        responses: { '201': { description: 'Created.', schema: policyCreatedSchema } },
      },
      list: {
        summary: `List ${plural}`,
        description: 'Newest first. A workspace key sees its workspace; an admin key its whole organisation unless workspace_id narrows it.',
        response: 'One page of policies.',
      },
      get: { summary: `Get a ${label}`, description: 'Archived policies stay readable. Another workspace’s policy is a 404.', response: 'The policy.' },
      update: {
        summary: `Update a ${label}`,
        description: 'Only the fields sent change; the version goes up by one. An archived policy cannot change (409).',
        operationId: `update${title}`,
        response: 'The updated policy.',
        errors: [400, 401, 403, 404, 409],
      },
    },
    actions: [
      {
        verb: 'archive',
        scope: 'policies:write',
        run: async (service, at, id) => {
          const change = await service.archive(at, id);
          return { stored: change.policy, details: { kind, changed: change.changed } };
        },
        doc: {
          summary: `Archive a ${label}`,
          description: 'The policy stays readable and is skipped by enforcement from now on. Archiving an archived policy changes nothing.',
          response: 'The archived policy.',
          errors: [401, 403, 404, 409],
        },
      },
    ],
  });
}

export const rateLimitPolicyResource = policyResource({
  kind: 'rate_limit',
  title: 'RateLimitPolicy',
  titles: 'RateLimitPolicies',
  flags: ['POLICY_ENABLED'],
  create: createRateLimitPolicySchema,
  update: updateRateLimitPolicySchema,
});

/** Usage limits are also switched by the spec's USAGE_LIMITS_ENABLED. */
export const usageLimitPolicyResource = policyResource({
  kind: 'usage_limit',
  title: 'UsageLimitPolicy',
  titles: 'UsageLimitPolicies',
  flags: ['POLICY_ENABLED', 'USAGE_LIMITS_ENABLED'],
  create: createUsageLimitPolicySchema,
  update: updateUsageLimitPolicySchema,
});

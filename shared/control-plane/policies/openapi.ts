// Documentation only: read by scripts/openapi.ts to write docs/openapi.yaml, never imported by a handler.
import type { OpenApiOperation } from '../openapi-operation.js';
import { POLICY_KINDS, type PolicyKind } from '../../store/policy-repository.js';
import { operationFamily } from '../operation-family.js';
import { POLICY_KIND_LABELS } from './policy-presenter.js';
import {
  createRateLimitPolicySchema,
  createUsageLimitPolicySchema,
  listPoliciesQuerySchema,
  listPolicyEntitiesQuerySchema,
  policyCreatedSchema,
  policyEntityListSchema,
  policyIdPathSchema,
  policyListSchema,
  policySchema,
  updateRateLimitPolicySchema,
  updateUsageLimitPolicySchema,
} from './schemas.js';

const TAG = 'Policies';
const READ = ['policies:read'];
const LIST = ['policies:read', 'policies:list'];
const WRITE = ['policies:write'];

const KIND_DOCS: Record<PolicyKind, { title: string; plural: string; flags: string[]; create: OpenApiOperation['body']; update: OpenApiOperation['body'] }> = {
  rate_limit: { title: 'RateLimitPolicy', plural: 'RateLimitPolicies', flags: ['POLICY_ENABLED'], create: createRateLimitPolicySchema, update: updateRateLimitPolicySchema },
  usage_limit: {
    title: 'UsageLimitPolicy',
    plural: 'UsageLimitPolicies',
    flags: ['POLICY_ENABLED', 'USAGE_LIMITS_ENABLED'],
    create: createUsageLimitPolicySchema,
    update: updateUsageLimitPolicySchema,
  },
};

/**
 * The routes of one policy kind (policies/routes.ts): not the derived CRUD of a resource definition (create answers
 * `{ id, object }`, a policy is archived rather than deleted, and a kind is switched by two flags).
 */
function operationsOf(kind: PolicyKind): OpenApiOperation[] {
  const { path: segment, label } = POLICY_KIND_LABELS[kind];
  const { title, plural, flags, create, update } = KIND_DOCS[kind];
  const base = `/v1/policies/${segment}`;
  const policies = operationFamily({ tag: TAG, featureFlags: flags });
  return [
    policies.post({
      path: base,
      operationId: `create${title}`,
      summary: `Create a ${label}`,
      description:
        'Conditions (all must match) choose the requests the policy applies to; group_by keys say how usage is counted. ' +
        'workspace_id and organisation_id default to the API key’s; a workspace key naming another workspace gets a 404.',
      scopes: WRITE,
      body: create,
      status: '201',
      response: { description: 'Created.', schema: policyCreatedSchema },
    }),
    policies.list({
      path: base,
      operationId: `list${plural}`,
      summary: `List ${label.replace('policy', 'policies')}`,
      description: 'Newest first. A workspace key sees its workspace; an admin key its whole organisation unless workspace_id narrows it.',
      scopes: LIST,
      query: listPoliciesQuerySchema,
      response: { description: 'One page of policies.', schema: policyListSchema },
    }),
    policies.get({
      path: `${base}/{id}`,
      operationId: `get${title}`,
      summary: `Get a ${label}`,
      description: 'Archived policies stay readable. Another workspace’s policy is a 404.',
      scopes: READ,
      pathParameters: policyIdPathSchema,
      response: { description: 'The policy.', schema: policySchema },
    }),
    policies.put({
      path: `${base}/{id}`,
      operationId: `update${title}`,
      summary: `Update a ${label}`,
      description: 'Only the fields sent change; the version goes up by one. An archived policy cannot change (409).',
      scopes: WRITE,
      pathParameters: policyIdPathSchema,
      body: update,
      response: { description: 'The updated policy.', schema: policySchema },
      errors: [400, 401, 403, 404, 409],
    }),
    policies.post({
      path: `${base}/{id}/archive`,
      operationId: `archive${title}`,
      summary: `Archive a ${label}`,
      description: 'The policy stays readable and is skipped by enforcement from now on. Archiving an archived policy changes nothing.',
      scopes: WRITE,
      pathParameters: policyIdPathSchema,
      response: { description: 'The archived policy.', schema: policySchema },
      errors: [401, 403, 404, 409],
    }),
  ];
}

export const openApiOperations: OpenApiOperation[] = [
  ...POLICY_KINDS.flatMap(operationsOf),
  operationFamily({ tag: TAG, scopes: LIST, featureFlags: ['POLICY_ENABLED'] }).list({
    path: '/v1/policies/entities',
    operationId: 'listPolicyEntities',
    summary: 'List the API keys, workspaces and users linked to policies',
    description: 'Entities named by the conditions of the policies the caller may see (api_key, workspace_id and metadata._user values; * names nothing), with the policies naming each.',
    query: listPolicyEntitiesQuerySchema,
    response: { description: 'One page of entities.', schema: policyEntityListSchema },
  }),
];

import { hasScope, type Principal } from '../../auth/principal.js';
import { GatewayError } from '../../http/errors.js';
import { jsonResponse } from '../../http/types.js';
import { listActivePolicies, POLICY_KINDS, type PolicyKind } from '../../store/policy-repository.js';
import type { ControlPlaneRequest } from '../handler-types.js';
import { audited } from '../audit.js';
import { requireScope } from '../authorization.js';
import { gatedBy as gated, type FeatureFlag } from '../feature-flags.js';
import { readPageRequest, toPage } from '../pagination.js';
import type { RouteRegistrar } from '../handler-types.js';
import { parseJsonBody, validate } from '../../http/json-body.js';
import { pagePolicyEntities } from './policy-entities.js';
import { POLICY_KIND_LABELS, POLICY_OBJECT, toPolicyResponse } from './policy-presenter.js';
import { PolicyService, type CreatePolicyInput, type UpdatePolicyInput } from './policy-service.js';
import {
  createRateLimitPolicySchema,
  createUsageLimitPolicySchema,
  listPolicyEntitiesQuerySchema,
  listPoliciesQuerySchema,
  updateRateLimitPolicySchema,
  updateUsageLimitPolicySchema,
} from './schemas.js';
import { registerWorkspaceContentProbe } from '../workspaces/contents.js';

/** The flags a kind's routes need: usage limits are also switched by the spec's USAGE_LIMITS_ENABLED. */
const FLAGS_OF_KIND: Record<PolicyKind, FeatureFlag[]> = {
  rate_limit: ['POLICY_ENABLED'],
  usage_limit: ['POLICY_ENABLED', 'USAGE_LIMITS_ENABLED'],
};

const BODY_SCHEMAS = {
  rate_limit: { create: createRateLimitPolicySchema, update: updateRateLimitPolicySchema },
  usage_limit: { create: createUsageLimitPolicySchema, update: updateUsageLimitPolicySchema },
} as const;

// Query validation leaves `limit` and `cursor` to the shared pagination reader.
const listQuerySchema = listPoliciesQuerySchema.omit({ limit: true, cursor: true });
const entitiesQuerySchema = listPolicyEntitiesQuerySchema.omit({ limit: true, cursor: true });

/**
 * The policies API: per kind `POST|GET /v1/policies/<kind>`, `GET|PUT /v1/policies/<kind>/{id}` and
 * `POST /v1/policies/<kind>/{id}/archive`, plus `GET /v1/policies/entities`. Every route is gated by its feature
 * flags and every mutation is audited, successful or not.
 */
export function registerPolicyRoutes(register: RouteRegistrar): void {
  let service: PolicyService | undefined;
  // Created on first use: repositories read settings, which the local runtime sets up after importing routes.
  const policies = () => (service ??= new PolicyService());
  // A workspace with active policies is not empty: deleting it needs `force`.
  registerWorkspaceContentProbe('policies', async (workspaceId) => (await listActivePolicies(workspaceId)).length > 0);

  for (const kind of POLICY_KINDS) {
    const base = `/v1/policies/${POLICY_KIND_LABELS[kind].path}`;
    const flags = FLAGS_OF_KIND[kind];
    const audit = (call: ControlPlaneRequest, action: string) => ({ action: `policy.${action}`, resource_type: 'policy', resource_id: call.params.id });

    register('POST', base, gated(flags, (call) =>
      audited(call, audit(call, 'create'), async () => {
        requireScope(call.principal, 'policies:write');
        const input: CreatePolicyInput = parseJsonBody(call.request, BODY_SCHEMAS[kind].create);
        const policy = await policies().create(call.principal, kind, input);
        return {
          value: jsonResponse(201, { id: policy.id, object: POLICY_OBJECT }),
          resource_id: policy.id,
          workspace_id: policy.workspace_id,
          details: { kind, name: policy.name ?? null },
        };
      }),
    ));

    register('GET', base, gated(flags, async (call) => {
      requireListScope(call.principal);
      const page = readPageRequest(call.request);
      const query = validate(listQuerySchema, call.request.query);
      const result = await policies().list(call.principal, kind, query, page);
      return jsonResponse(200, toPage(result.items.map(toPolicyResponse), result.nextKey));
    }));

    register('GET', `${base}/{id}`, gated(flags, async (call) => {
      requireScope(call.principal, 'policies:read');
      return jsonResponse(200, toPolicyResponse(await policies().get(call.principal, kind, call.params.id)));
    }));

    register('PUT', `${base}/{id}`, gated(flags, (call) =>
      audited(call, audit(call, 'update'), async () => {
        requireScope(call.principal, 'policies:write');
        const input: UpdatePolicyInput = parseJsonBody(call.request, BODY_SCHEMAS[kind].update);
        const change = await policies().update(call.principal, kind, call.params.id, input);
        return { value: jsonResponse(200, toPolicyResponse(change.policy)), workspace_id: change.policy.workspace_id, details: { kind, fields: change.fields } };
      }),
    ));

    register('POST', `${base}/{id}/archive`, gated(flags, (call) =>
      audited(call, audit(call, 'archive'), async () => {
        requireScope(call.principal, 'policies:write');
        const change = await policies().archive(call.principal, kind, call.params.id);
        return { value: jsonResponse(200, toPolicyResponse(change.policy)), workspace_id: change.policy.workspace_id, details: { kind, changed: change.changed } };
      }),
    ));
  }

  register('GET', '/v1/policies/entities', gated('POLICY_ENABLED', async (call) => {
    requireListScope(call.principal);
    const page = readPageRequest(call.request);
    const query = validate(entitiesQuerySchema, call.request.query);
    const visible = await policies().listAll(call.principal, query);
    return jsonResponse(200, await pagePolicyEntities(visible, page, policies().referenceStores));
  }));
}

/** Lists accept `policies:read` or the narrower `policies:list` (what a JWT's `list` grant becomes). */
function requireListScope(principal: Principal): void {
  if (hasScope(principal, 'policies:read') || hasScope(principal, 'policies:list')) return;
  throw new GatewayError(403, 'missing_scope', 'This API key lacks the policies:read (or policies:list) scope');
}

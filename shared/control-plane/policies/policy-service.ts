import type { Principal } from '../../auth/principal.js';
import { GatewayError } from '../../http/errors.js';
import { ApiKeyRepository } from '../../store/api-key-repository.js';
import type { PagedResult } from '../../store/paged-query.js';
import {
  PolicyRepository,
  PolicyVersionConflictError,
  type PolicyKind,
  type PolicyRecord,
  type PolicyStatus,
} from '../../store/policy-repository.js';
import { WorkspaceRepository } from '../../store/workspace-repository.js';
import type { PageRequest } from '../pagination.js';
import { bindsCaller, limitsSetBy, organisationLimitRefusal, policyLoosening } from '../organisation-limits.js';
import { looksLikeUuid, newPolicyId } from './policy-id.js';
import { POLICY_KIND_LABELS } from './policy-presenter.js';
import { normaliseConditions, type ReferenceStores } from './policy-references.js';
import { resolveCreationScope, resolveVisibleWorkspace } from './policy-scope.js';
import type { CreateRateLimitPolicy, CreateUsageLimitPolicy, UpdateRateLimitPolicy, UpdateUsageLimitPolicy } from './schemas.js';

export type CreatePolicyInput = CreateRateLimitPolicy | CreateUsageLimitPolicy;
export type UpdatePolicyInput = UpdateRateLimitPolicy | UpdateUsageLimitPolicy;

export interface PolicyListQuery {
  workspace_id?: string;
  status?: PolicyStatus;
}

export interface PolicyChange {
  policy: PolicyRecord;
  /** False when the call changed nothing (archiving an archived policy). */
  changed: boolean;
  /** The fields the call changed, for the audit event. */
  fields: string[];
}

/** The policy use cases: what a caller may create, see and change, independent of HTTP. */
export class PolicyService {
  constructor(
    private readonly policies = new PolicyRepository(),
    private readonly workspaces = new WorkspaceRepository(),
    private readonly apiKeys = new ApiKeyRepository(),
    private readonly now: () => Date = () => new Date(),
  ) {}

  get referenceStores(): ReferenceStores {
    return { apiKeys: this.apiKeys, workspaces: this.workspaces };
  }

  async create(principal: Principal, kind: PolicyKind, input: CreatePolicyInput): Promise<PolicyRecord> {
    const scope = await resolveCreationScope(principal, input, this.workspaces);
    const conditions = await normaliseConditions(input.conditions, scope, this.referenceStores);
    const at = this.now().toISOString();
    const record: PolicyRecord = {
      id: newPolicyId(this.now().getTime()),
      kind,
      name: input.name,
      conditions,
      group_by: input.group_by.map(({ key }) => ({ key })),
      type: input.type,
      unit: input.unit,
      value: input.value,
      ...(input.enforcement ? { enforcement: input.enforcement } : {}),
      status: 'active',
      set_by: limitsSetBy(principal),
      workspace_id: scope.workspaceId,
      organisation_id: scope.organisationId,
      created_at: at,
      updated_at: at,
      version: 1,
    };
    if (kind === 'usage_limit' && 'credit_limit' in input) {
      record.credit_limit = { type: input.credit_limit.type, value: input.credit_limit.value };
      record.periodic_reset = input.periodic_reset;
    }
    await this.policies.create(record);
    return record;
  }

  /** The policy, if the caller may see it; a 404 otherwise (another workspace's policy does not exist for it). */
  async get(principal: Principal, kind: PolicyKind, policyId: string): Promise<PolicyRecord> {
    const record = looksLikeUuid(policyId) ? await this.policies.findById(policyId) : undefined;
    const visible =
      record !== undefined &&
      record.kind === kind &&
      record.organisation_id === principal.organisationId &&
      (principal.kind === 'admin' || record.workspace_id === principal.workspaceId);
    if (!visible) throw new GatewayError(404, 'not_found', `No ${POLICY_KIND_LABELS[kind].label} with id '${policyId}'`);
    return record;
  }

  /**
   * One page of the policies the caller may see: one workspace when named (or for a workspace key), the whole
   * organisation for an admin key otherwise. Without `kind`, both kinds.
   */
  async list(principal: Principal, kind: PolicyKind | undefined, query: PolicyListQuery, page: PageRequest): Promise<PagedResult<PolicyRecord>> {
    const filter = { kind, status: query.status, limit: page.limit, startKey: page.startKey };
    if (query.workspace_id === undefined && principal.kind === 'admin') {
      return this.policies.listByOrganisation(principal.organisationId, filter);
    }
    const scope = await resolveVisibleWorkspace(principal, query.workspace_id, this.workspaces);
    return this.policies.listByWorkspace(scope.workspaceId, filter);
  }

  /** Every policy the caller may see (all pages), for views that aggregate over policies. */
  async listAll(principal: Principal, query: PolicyListQuery): Promise<PolicyRecord[]> {
    const all: PolicyRecord[] = [];
    let startKey: Record<string, unknown> | undefined;
    do {
      const page = await this.list(principal, undefined, query, { limit: 100, startKey });
      all.push(...page.items);
      startKey = page.nextKey;
    } while (startKey);
    return all;
  }

  async update(principal: Principal, kind: PolicyKind, policyId: string, input: UpdatePolicyInput): Promise<PolicyChange> {
    const current = await this.get(principal, kind, policyId);
    if (current.status === 'archived') {
      throw new GatewayError(409, 'policy_archived', `The ${POLICY_KIND_LABELS[kind].label} '${policyId}' is archived; archived policies cannot be changed`);
    }
    if (bindsCaller(principal, current)) {
      const loosened = policyLoosening(current, input as Record<string, unknown>);
      if (loosened) throw organisationLimitRefusal(loosened.message, loosened.field);
    }
    const scope = { organisationId: current.organisation_id, workspaceId: current.workspace_id };
    const next: PolicyRecord = { ...current };
    if (input.name !== undefined) next.name = input.name;
    if (input.conditions !== undefined) next.conditions = await normaliseConditions(input.conditions, scope, this.referenceStores);
    if (input.group_by !== undefined) next.group_by = input.group_by.map(({ key }) => ({ key }));
    if (input.type !== undefined) next.type = input.type;
    if (input.unit !== undefined) next.unit = input.unit;
    if (input.value !== undefined) next.value = input.value;
    if (input.enforcement !== undefined) next.enforcement = input.enforcement;
    if ('credit_limit' in input && input.credit_limit !== undefined) next.credit_limit = { ...input.credit_limit };
    if ('periodic_reset' in input && input.periodic_reset !== undefined) next.periodic_reset = input.periodic_reset;
    return { policy: await this.save(current, next), changed: true, fields: Object.keys(input).sort() };
  }

  /** Archives a policy: it stays readable, enforcement skips it, and it can no longer change. Idempotent. */
  async archive(principal: Principal, kind: PolicyKind, policyId: string): Promise<PolicyChange> {
    const current = await this.get(principal, kind, policyId);
    if (current.status === 'archived') return { policy: current, changed: false, fields: [] };
    if (bindsCaller(principal, current)) throw organisationLimitRefusal(`The policy '${current.id}' cannot be archived`);
    const at = this.now().toISOString();
    return { policy: await this.save(current, { ...current, status: 'archived', archived_at: at }), changed: true, fields: ['status'] };
  }

  private async save(current: PolicyRecord, next: PolicyRecord): Promise<PolicyRecord> {
    const saved: PolicyRecord = { ...next, updated_at: this.now().toISOString(), version: current.version + 1 };
    try {
      await this.policies.replace(saved, current.version);
    } catch (error) {
      if (error instanceof PolicyVersionConflictError) {
        throw new GatewayError(409, 'policy_conflict', `The policy '${current.id}' was changed by another request at the same time; read it again and retry`);
      }
      throw error;
    }
    return saved;
  }
}

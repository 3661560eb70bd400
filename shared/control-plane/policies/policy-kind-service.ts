import type { PolicyKind, PolicyRecord } from '../../store/policy-repository.js';
import { toPage, type Page, type PageRequest } from '../pagination.js';
import type { CrudService, ResourceScope } from '../resource/define-resource.js';
import { toPolicyResponse } from './policy-presenter.js';
import { PolicyService, type CreatePolicyInput, type PolicyChange, type PolicyListQuery, type UpdatePolicyInput } from './policy-service.js';

/**
 * The policy use cases of one kind, as a resource definition calls them (policies/resource.ts). The policy
 * service decides visibility from the principal: a policy's workspace is in its record (or the create body),
 * never the route's scope.
 */
export class PolicyKindService implements CrudService<PolicyRecord, CreatePolicyInput, UpdatePolicyInput, PolicyListQuery> {
  constructor(
    private readonly kind: PolicyKind,
    readonly policies = new PolicyService(),
  ) {}

  create(at: ResourceScope, input: CreatePolicyInput): Promise<PolicyRecord> {
    return this.policies.create(at.principal, this.kind, input);
  }

  async list(at: ResourceScope, page: PageRequest, query: PolicyListQuery): Promise<Page<unknown>> {
    const result = await this.policies.list(at.principal, this.kind, query, page);
    return toPage(result.items.map(toPolicyResponse), result.nextKey);
  }

  get(at: ResourceScope, id: string): Promise<PolicyRecord> {
    return this.policies.get(at.principal, this.kind, id);
  }

  async update(at: ResourceScope, id: string, input: UpdatePolicyInput): Promise<PolicyRecord> {
    return (await this.policies.update(at.principal, this.kind, id, input)).policy;
  }

  archive(at: ResourceScope, id: string): Promise<PolicyChange> {
    return this.policies.archive(at.principal, this.kind, id);
  }
}

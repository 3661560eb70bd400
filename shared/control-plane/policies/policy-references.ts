import { badRequest } from '../../http/errors.js';
import { findProvider, PROVIDER_SLUGS } from '../../providers/registry.js';
import type { ApiKeyRepository } from '../../store/api-key-repository.js';
import type { PolicyCondition } from '../../store/policy-repository.js';
import type { WorkspaceRepository } from '../../store/workspace-repository.js';
import type { PolicyScope } from './policy-scope.js';
import { findWorkspaceId } from './policy-scope.js';
import { MATCH_ANY } from './schemas.js';
import { VirtualKeyRepository } from '../../store/virtual-key-repository.js';
import { integrationRepository, integrationSharedWith, providerRepository, type IntegrationRecord } from '../../store/integration-repository.js';

export interface ReferenceStores {
  apiKeys: ApiKeyRepository;
  workspaces: WorkspaceRepository;
}

/**
 * Checks the condition values that name something gw knows (API keys, workspaces, providers, integrations) and
 * stores them in the form enforcement compares against: the API key id, the workspace id (a slug is resolved), the
 * canonical provider slug or a workspace provider's `@slug`, the integration's slug. A value the caller may not see is refused with the same message as one that does not exist.
 */
export async function normaliseConditions(conditions: PolicyCondition[], scope: PolicyScope, stores: ReferenceStores): Promise<PolicyCondition[]> {
  const normalised: PolicyCondition[] = [];
  for (const [index, condition] of conditions.entries()) {
    normalised.push({ key: condition.key, value: await normaliseValue(condition, `conditions[${index}].value`, scope, stores) });
  }
  return normalised;
}

async function normaliseValue(condition: PolicyCondition, param: string, scope: PolicyScope, stores: ReferenceStores): Promise<string> {
  const { key, value } = condition;
  if (value === MATCH_ANY) return value;
  switch (key) {
    case 'api_key': {
      const found = await stores.apiKeys.findById(value);
      const inScope = found && found.record.organisation_id === scope.organisationId && found.record.workspace_id === scope.workspaceId;
      if (!inScope) throw invalidValue(param, `no API key with id '${value}' in workspace ${scope.workspaceId}; use the id of one of its API keys, or *`);
      return found.record.id;
    }
    case 'workspace_id': {
      const workspaceId = await findWorkspaceId(scope.organisationId, value, stores.workspaces);
      if (workspaceId !== scope.workspaceId) {
        throw invalidValue(param, `workspace_id must name the policy's own workspace (${scope.workspaceId}, by id or slug) or be *`);
      }
      return workspaceId;
    }
    case 'virtual_key': {
      // Strict like the other references: a virtual key of the policy's own workspace, by id.
      if (!/^[A-Za-z0-9_-]{1,128}$/.test(value) || !(await new VirtualKeyRepository().get(scope.workspaceId, value))) {
        throw invalidValue(param, `no virtual key with id '${value.slice(0, 128)}' in workspace ${scope.workspaceId}; use the id of one of its virtual keys, or *`);
      }
      return value;
    }
    case 'provider': {
      // `@slug`: a workspace provider (x-gw-provider: @slug) of the policy's own workspace.
      if (value.startsWith('@')) {
        const slug = value.slice(1);
        if (!/^[a-z0-9][a-z0-9_-]{0,254}$/.test(slug) || !(await providerRepository().getBySlug(scope.workspaceId, slug))) {
          throw invalidValue(param, `no provider '${value.slice(0, 128)}' in workspace ${scope.workspaceId}; use @<slug> of one of its providers, a provider kind, or *`);
        }
        return value;
      }
      const provider = findProvider(value);
      if (!provider) throw invalidValue(param, `unknown provider '${value}'; known providers: ${PROVIDER_SLUGS.join(', ')}`);
      return provider.slug;
    }
    case 'integration': {
      // An integration of the organisation shared with the policy's workspace, by slug or id; stored as its slug
      // (what enforcement compares: the slug of the integration behind the request's provider).
      const integration = await findSharedIntegration(scope, value);
      if (!integration) throw invalidValue(param, `no integration '${value.slice(0, 128)}' shared with workspace ${scope.workspaceId}; use the slug or id of one, or *`);
      return integration.slug;
    }
    default:
      return value;
  }
}

async function findSharedIntegration(scope: PolicyScope, value: string): Promise<IntegrationRecord | undefined> {
  if (value.length > 255) return undefined;
  const integrations = integrationRepository();
  const found = (await integrations.getBySlug(scope.organisationId, value)) ?? (await integrations.get(scope.organisationId, value));
  return found && integrationSharedWith(found, scope.workspaceId) ? found : undefined;
}

function invalidValue(param: string, message: string) {
  return badRequest('invalid_condition_value', `${param}: ${message}`, param);
}

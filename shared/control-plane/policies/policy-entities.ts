import { badRequest } from '../../http/errors.js';
import type { ApiKeyRecord } from '../../store/api-key-repository.js';
import type { PolicyRecord } from '../../store/policy-repository.js';
import { toPage, type Page, type PageRequest } from '../pagination.js';
import type { ReferenceStores } from './policy-references.js';
import { MATCH_ANY, type PolicyEntity } from './schemas.js';

type EntityType = PolicyEntity['type'];
type LinkedPolicy = PolicyEntity['policies'][number];

interface EntityReference {
  type: EntityType;
  id: string;
  policies: LinkedPolicy[];
}

const TYPE_ORDER: Record<EntityType, number> = { api_key: 0, workspace: 1, user: 2 };
/** The condition keys whose values are entities; `metadata._user` is the spec's user of a request. */
const ENTITY_KEYS: Record<string, EntityType> = { api_key: 'api_key', workspace_id: 'workspace', 'metadata._user': 'user' };

/**
 * The API keys, workspaces and users that the given policies' conditions name (`*` names nothing), sorted by
 * type then id, one page at a time. The cursor is the last entity of the previous page, so paging stays stable
 * while policies change. Only the entities of the page are looked up in the store.
 */
export async function pagePolicyEntities(policies: PolicyRecord[], page: PageRequest, stores: ReferenceStores): Promise<Page<PolicyEntity>> {
  const references = collectReferences(policies);
  const after = readEntityCursor(page.startKey);
  const remaining = after ? references.filter((reference) => compareReferences(reference, after) > 0) : references;
  const pageReferences = remaining.slice(0, page.limit);
  const entities = await Promise.all(pageReferences.map((reference) => describe(reference, stores)));
  const last = pageReferences.at(-1);
  const nextKey = remaining.length > page.limit && last ? { type: last.type, id: last.id } : undefined;
  return toPage(entities, nextKey);
}

function collectReferences(policies: PolicyRecord[]): EntityReference[] {
  const byKey = new Map<string, EntityReference>();
  for (const policy of policies) {
    for (const condition of policy.conditions) {
      const type = ENTITY_KEYS[condition.key];
      if (!type || condition.value === MATCH_ANY) continue;
      const mapKey = `${type}#${condition.value}`;
      const reference = byKey.get(mapKey) ?? { type, id: condition.value, policies: [] };
      reference.policies.push({ id: policy.id, kind: policy.kind, name: policy.name ?? null, status: policy.status });
      byKey.set(mapKey, reference);
    }
  }
  const references = [...byKey.values()].sort(compareReferences);
  for (const reference of references) reference.policies.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return references;
}

function compareReferences(a: Pick<EntityReference, 'type' | 'id'>, b: Pick<EntityReference, 'type' | 'id'>): number {
  return TYPE_ORDER[a.type] - TYPE_ORDER[b.type] || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

function readEntityCursor(startKey: Record<string, unknown> | undefined): Pick<EntityReference, 'type' | 'id'> | undefined {
  if (startKey === undefined) return undefined;
  const { type, id } = startKey;
  const wellFormed = Object.keys(startKey).length === 2 && typeof type === 'string' && Object.hasOwn(TYPE_ORDER, type) && typeof id === 'string';
  if (!wellFormed) throw badRequest('invalid_cursor', 'cursor does not belong to this list; pass next_cursor from the previous page unchanged', 'cursor');
  return { type: type as EntityType, id: id as string };
}

async function describe(reference: EntityReference, stores: ReferenceStores): Promise<PolicyEntity> {
  const { id, policies } = reference;
  if (reference.type === 'api_key') {
    const found = await stores.apiKeys.findById(id);
    const key = found?.record;
    return {
      object: 'policy_entity',
      type: 'api_key',
      id,
      name: key?.name ?? null,
      masked: key?.masked ?? null,
      workspace_id: key?.workspace_id ?? null,
      status: key ? statusOf(key) : null,
      policies,
    };
  }
  if (reference.type === 'workspace') {
    const workspace = await stores.workspaces.getWorkspace(id);
    return { object: 'policy_entity', type: 'workspace', id, name: workspace?.name ?? null, slug: workspace?.slug ?? null, policies };
  }
  return { object: 'policy_entity', type: 'user', id, policies };
}

/** An active key whose expiry has passed is expired already, before the expiry worker marks it. */
function statusOf(key: ApiKeyRecord): ApiKeyRecord['status'] {
  return key.status === 'active' && key.expires_at !== undefined && Date.parse(key.expires_at) <= Date.now() ? 'expired' : key.status;
}

import { findProvider } from '../../providers/registry.js';
import type { PolicyRecord } from '../../store/policy-repository.js';
import type { RouteNode } from '../config/target-tree.js';
import type { GatewayContext } from '../context.js';
import { matchesQuery, type ConditionInput } from '../routing/conditions.js';
import { virtualKeyProvider } from './target-estimate.js';

type LeafNode = Extract<RouteNode, { kind: 'leaf' }>;

/**
 * A request's value for each key a policy can name (`api_key`, `workspace_id`, `virtual_key`, `provider`,
 * `integration`, `model`, `metadata.<key>`); undefined when the request has none.
 */
export type RequestValues = (key: string) => string | undefined;

/**
 * The canonical provider kind (`openai`…) of a request, also when `provider` is a workspace provider
 * (`@team-openai`): a condition `provider: openai` matches both (policy-match.ts). Not a key a policy can
 * name (the policy schema's key pattern refuses it).
 */
export const PROVIDER_KIND = 'provider#kind';

/**
 * The request's policy values, known before routing. `provider`, `model` and `virtual_key` are those of the
 * target routing tries first: the header settings without a config; under a config, the first target of a
 * `single` or `fallback`, the matching branch of a `conditional`, and for a `loadbalance` a value only when
 * every target it may pick agrees on it. A virtual key's provider is looked up (cached) only when a policy
 * names `provider` (what a request reserves does not depend on it: target-estimate.ts prices every candidate). A request through a workspace provider (`x-gw-provider: @slug`) has `provider` `@slug`
 * (its kind under PROVIDER_KIND) and `integration` the slug of the provider's integration.
 */
export async function requestValues(context: GatewayContext, policies: readonly PolicyRecord[]): Promise<RequestValues> {
  const leaves = firstChoiceLeaves(context.routeTree, { metadata: context.options.metadata, params: context.body });
  const model = agreed(leaves.map((leaf) => modelOf(leaf, context.body.model)));
  const virtualKey = agreed(leaves.map((leaf) => leaf.settings.virtualKey));
  let provider = agreed(leaves.map((leaf) => canonicalProvider(leaf.settings.provider)));
  if (provider === undefined && virtualKey !== undefined && namesKey(policies, 'provider')) {
    provider = await virtualKeyProvider(context.principal.workspaceId, virtualKey);
  }
  // x-gw-provider: @slug: the request names a workspace provider, and through it an integration.
  const workspaceProvider = context.workspaceProvider;
  const fixed: Record<string, string | undefined> = {
    api_key: context.principal.keyId,
    workspace_id: context.principal.workspaceId,
    virtual_key: virtualKey,
    provider: workspaceProvider ? `@${workspaceProvider.provider.slug}` : provider,
    [PROVIDER_KIND]: provider,
    integration: workspaceProvider?.integration.slug,
    model,
  };
  return (key) => (key.startsWith('metadata.') ? context.options.metadata[key.slice('metadata.'.length)] : fixed[key]);
}

/** The leaves routing may try first, without making the load-balancing choice. */
export function firstChoiceLeaves(node: RouteNode, input: ConditionInput): LeafNode[] {
  if (node.kind === 'leaf') return [node];
  const { strategy, children } = node;
  switch (strategy.mode) {
    case 'single':
    case 'fallback':
      return firstChoiceLeaves(children[0], input);
    case 'loadbalance':
      return children.filter((child) => child.weight > 0).flatMap((child) => firstChoiceLeaves(child, input));
    case 'conditional': {
      const byName = (name: string) => children.find((child) => child.name === name);
      const matched = strategy.conditions?.find((condition) => matchesQuery(condition.query, input));
      const chosen = matched ? byName(matched.then) : strategy.default !== undefined ? byName(strategy.default) : undefined;
      // No branch matches: routing refuses the request anyway; no value is known.
      return chosen ? firstChoiceLeaves(chosen, input) : [];
    }
  }
}

function modelOf(leaf: LeafNode, bodyModel: unknown): string | undefined {
  const model = leaf.settings.overrideParams.model ?? bodyModel;
  return typeof model === 'string' && model !== '' ? model : undefined;
}

function canonicalProvider(slug: string | undefined): string | undefined {
  return slug === undefined ? undefined : (findProvider(slug)?.slug ?? slug);
}

/** The one value every candidate has, or undefined when they differ or there is none. */
function agreed(values: Array<string | undefined>): string | undefined {
  const first = values[0];
  return values.length > 0 && values.every((value) => value === first) ? first : undefined;
}

function namesKey(policies: readonly PolicyRecord[], key: string): boolean {
  return policies.some((policy) => policy.conditions.some((condition) => condition.key === key) || policy.group_by.some((group) => group.key === key));
}

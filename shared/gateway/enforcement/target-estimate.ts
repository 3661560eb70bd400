import { GatewayError } from '../../http/errors.js';
import { estimatedMediaUsage, mediaUnits, unpricedCost, unpricedMediaCost } from '../../observability/pricing/index.js';
import { findProvider } from '../../providers/registry.js';
import type { RouteNode } from '../config/target-tree.js';
import type { GatewayContext } from '../context.js';
import { matchesQuery, type ConditionInput } from '../routing/conditions.js';
import { resolveVirtualKey } from '../virtual-key-target.js';
import { merged } from '../../merged.js';
import { countPromptTokens, estimateCost, maxOutputTokensOf, type UsageEstimate } from './estimate.js';

type LeafNode = Extract<RouteNode, { kind: 'leaf' }>;

/** What admission reserves: the most tokens and the most USD any target the request may reach can use. */
export interface ReservationEstimate {
  tokens: number;
  /** USD; null only when no cost limit asked for it. Never null because a price is unknown (see below). */
  cost: number | null;
}

/** What an unpriced model does under a cost limit: reserve and charge at the default rates, or refuse. */
export type UnpricedModels = 'reserve' | 'refuse';

/**
 * Every leaf routing may end up calling, whatever names it: `single` its first target, `fallback` every target
 * (any may answer), `loadbalance` every target it may pick, `conditional` the branch this request takes.
 */
export function candidateLeaves(node: RouteNode, input: ConditionInput): LeafNode[] {
  if (node.kind === 'leaf') return [node];
  const { strategy, children } = node;
  switch (strategy.mode) {
    case 'single':
      return candidateLeaves(children[0], input);
    case 'fallback':
      return children.flatMap((child) => candidateLeaves(child, input));
    case 'loadbalance':
      return children.filter((child) => child.weight > 0).flatMap((child) => candidateLeaves(child, input));
    case 'conditional': {
      const byName = (name: string) => children.find((child) => child.name === name);
      const matched = strategy.conditions?.find((condition) => matchesQuery(condition.query, input));
      const chosen = matched ? byName(matched.then) : strategy.default !== undefined ? byName(strategy.default) : undefined;
      return chosen ? candidateLeaves(chosen, input) : [];
    }
  }
}

/**
 * The reservation of a request: for each candidate target, its body after `override_params` (which may change
 * the model and `max_tokens`), its provider (the target's, or its virtual key's: looked up, cached) and model,
 * estimated (estimate.ts) and priced; the most expensive candidate is reserved, and settlement charges the one
 * that answered. A candidate whose model has no price reserves at UNPRICED_MODEL_RATES, or, with `unpriced:
 * 'refuse'`, fails the request with 400 `unpriced_model`: an unknown price never means "no limit".
 */
export async function estimateReservation(context: GatewayContext, needs: { cost: boolean }, unpriced: UnpricedModels = 'reserve'): Promise<ReservationEstimate> {
  const promptTokens = await countPromptTokens(context.body);
  const leaves = candidateLeaves(context.routeTree, { metadata: context.options.metadata, params: context.body });
  // No candidate (a conditional without a match): routing refuses the request; the body's own numbers stand.
  const candidates = leaves.length > 0 ? leaves.map((leaf) => merged(context.body, leaf.settings.overrideParams)) : [context.body];
  const estimates = candidates.map((body): UsageEstimate => {
    const maxOutputTokens = context.endpoint === 'embeddings' ? 0 : maxOutputTokensOf(body);
    return { promptTokens, maxOutputTokens, totalTokens: promptTokens + maxOutputTokens };
  });
  const tokens = Math.max(...estimates.map((estimate) => estimate.totalTokens));
  if (!needs.cost) return { tokens, cost: null };
  const costs = await Promise.all(
    estimates.map(async (estimate, index) => {
      const leaf = leaves[index] as LeafNode | undefined;
      const provider = leaf ? await leafProvider(leaf, context.principal.workspaceId) : undefined;
      const model = typeof candidates[index].model === 'string' ? candidates[index].model : undefined;
      const media = estimatedMediaUsage(context.endpoint, candidates[index]);
      const priced = await estimateCost(provider, model, estimate, media).catch(() => null);
      if (priced !== null) return priced;
      if (unpriced === 'refuse') throw unpricedModelError(provider, model);
      return unpricedCost({ input: estimate.promptTokens, output: estimate.maxOutputTokens }) + unpricedMediaCost(mediaUnits(media));
    }),
  );
  return { tokens, cost: Math.max(...costs) };
}

/** The canonical provider a leaf calls: the one it names, else its virtual key's (undefined: unknown key). */
export async function leafProvider(leaf: LeafNode, workspaceId: string): Promise<string | undefined> {
  const named = leaf.settings.provider;
  if (named !== undefined) return findProvider(named)?.slug ?? named;
  if (leaf.settings.virtualKey === undefined) return undefined;
  return virtualKeyProvider(workspaceId, leaf.settings.virtualKey);
}

/** A virtual key's provider (cached with the key); undefined when it is unknown or unreadable. */
export async function virtualKeyProvider(workspaceId: string, virtualKeyId: string): Promise<string | undefined> {
  try {
    return (await resolveVirtualKey(workspaceId, virtualKeyId)).provider;
  } catch {
    // An unknown or unreadable virtual key fails the request with its own error when routing resolves it.
    return undefined;
  }
}

function unpricedModelError(provider: string | undefined, model: string | undefined): GatewayError {
  const named = `${provider ?? 'an unknown provider'}/${model ?? '(no model)'}`;
  return new GatewayError(
    400,
    'unpriced_model',
    `No price is known for ${named}, and this workspace refuses unpriced models while a cost limit applies (budget, cost usage limit or provider budget); give the model a price or use a priced one`,
    { param: 'model' },
  );
}

import type { GuardrailRun } from '../guardrails/run.js';
import type { RequestBody } from '../guardrails/request-shapes.js';
import type { RouteNode } from './config/target-tree.js';
import { matchesQuery } from './routing/conditions.js';
import { merged } from '../merged.js';

/** The guardrail run of one leaf: `key` names its guardrail list (leaves with the same list share a run). */
export interface LeafRun {
  key: string;
  run: GuardrailRun;
  /** The run judged the client's body with the leaf's override_params merged (its body carries them). */
  overridden: boolean;
}

type Denial = NonNullable<GuardrailRun['denied']>;

export interface PrunedRoute {
  tree: RouteNode;
  /** Set when every remaining target ran the same guardrail list: the body they all send. */
  sharedBody?: RequestBody;
  /** How many targets guardrails took out of the route. */
  removed: number;
}

/**
 * Takes the targets a guardrail denied out of the route tree, before anything is admitted or sent:
 * - `fallback` and `loadbalance` keep their other targets (a denied target is never tried or picked);
 * - `single` follows its first target;
 * - `conditional` is decided now, on the client's body and metadata, when one of its targets was denied: the
 *   chosen target stays; a denied choice denies the request (it would have been the one called).
 * When nothing remains, `denied` is the first denial in target order. Targets whose guardrails transformed the
 * body, while others differ (or whose override_params were judged with the body), carry the changed top-level
 * fields as override params.
 */
export function pruneDeniedTargets(tree: RouteNode, runs: ReadonlyMap<string, LeafRun>, clientBody: RequestBody, metadata: Record<string, string>): { route?: PrunedRoute; denied?: Denial } {
  let removed = 0;
  const kept = new Set<string>();

  function prune(node: RouteNode): { node?: RouteNode; denied?: Denial } {
    if (node.kind === 'leaf') {
      const leafRun = runs.get(node.path)!;
      if (leafRun.run.denied) {
        removed++;
        return { denied: leafRun.run.denied };
      }
      kept.add(leafRun.key);
      return { node };
    }
    if (node.strategy.mode === 'single') {
      const first = prune(node.children[0]);
      return first.node ? { node: merged(node, { children: [first.node] }) } : first;
    }
    if (node.strategy.mode === 'conditional') return pruneConditional(node);
    const results = node.children.map(prune);
    const children = results.flatMap((result) => (result.node ? [result.node] : []));
    const usable = node.strategy.mode === 'loadbalance' ? children.some((child) => child.weight > 0) : children.length > 0;
    if (!usable) return { denied: results.find((result) => result.denied)?.denied };
    return { node: merged(node, { children }) };
  }

  function pruneConditional(node: Extract<RouteNode, { kind: 'strategy' }>): { node?: RouteNode; denied?: Denial } {
    const results = node.children.map(prune);
    if (results.every((result) => result.node)) return { node: merged(node, { children: results.map((result) => result.node!) }) };
    const input = { metadata, params: clientBody };
    const chosenName = node.strategy.conditions?.find((condition) => matchesQuery(condition.query, input))?.then ?? node.strategy.default;
    // No match and no default: routing answers AB0112 without calling anything, as it would have.
    if (chosenName === undefined) return { node };
    const index = node.children.findIndex((child) => child.name === chosenName);
    return results[index];
  }

  const result = prune(tree);
  if (!result.node) return { denied: result.denied };
  // A run over override_params carries them in its body: that body is the leaf's own, never the request's.
  const keptRun = kept.size === 1 ? [...runs.values()].find((leafRun) => kept.has(leafRun.key))! : undefined;
  const sharedBody = keptRun && !keptRun.overridden ? keptRun.run.body : undefined;
  const pruned = sharedBody ? result.node : withLeafBodies(result.node, runs, clientBody);
  return { route: { tree: pruned, sharedBody, removed } };
}

/**
 * Each leaf whose guardrails ran on a body other than the client's gets that body's differing top-level fields
 * as its override params: a transform of the merged request (a prefix added to messages an override supplied)
 * wins over the override it transformed.
 */
function withLeafBodies(node: RouteNode, runs: ReadonlyMap<string, LeafRun>, clientBody: RequestBody): RouteNode {
  if (node.kind === 'strategy') return merged(node, { children: node.children.map((child) => withLeafBodies(child, runs, clientBody)) });
  const body = runs.get(node.path)!.run.body;
  if (body === clientBody) return node;
  const changed: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(body)) if (clientBody[key] !== value) changed[key] = value;
  return merged(node, { settings: merged(node.settings, { overrideParams: merged(node.settings.overrideParams, changed) }) });
}

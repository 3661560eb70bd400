import type { RouteNode } from './config/target-tree.js';
import type { GatewayContext } from './context.js';
import { guardrailResolver } from './guardrail-resolver.js';
import { settings } from '../settings.js';

/**
 * The guardrail stage: after the config is resolved, before admission, so a denied request consumes no
 * rate-limit, budget or cache unit and nothing is forwarded. The workspace's `default_guardrails` run first on
 * every request, then each target's `input_guardrails` (inherited down the tree). Guardrails and the defaults
 * come from a cache: a warm request costs no store call. A request no target may take is denied with 400
 * `guardrail_violation`; targets denied while others pass are removed from the route (docs/guardrails.md).
 * The checks themselves (guardrail-judge.ts and the guardrail kinds) are imported with the first request that
 * has a guardrail to run, so a gateway whose requests run none never loads them (they stay out of its cold start).
 */
export async function applyGuardrails(context: GatewayContext): Promise<void> {
  if (!settings().GUARDRAILS_ENABLED) return;
  const resolver = guardrailResolver();
  const defaults = await resolver.workspaceDefaults(context.principal.workspaceId);
  const leaves = leavesOf(context.routeTree);
  if (defaults.length === 0 && leaves.every((leaf) => !leaf.settings.inputGuardrails?.length)) return;
  const { judgeGuardrails } = await import('./guardrail-judge.js');
  await judgeGuardrails(context, resolver, defaults, leaves);
}

function leavesOf(node: RouteNode): Array<Extract<RouteNode, { kind: 'leaf' }>> {
  return node.kind === 'leaf' ? [node] : node.children.flatMap(leavesOf);
}

import type { LeafSettings } from './config/target-tree.js';
import type { GatewayContext } from './context.js';
import { withRetries, type RetryClock } from './routing/retry.js';
import { routeRequest, type RouteResult } from './routing/route.js';

/** One try of one leaf: its path in the config (`config.targets[1]`), its settings, and which retry this is (0 first). */
export type LeafAttempt<T> = (leafPath: string, leaf: LeafSettings, retry: number) => Promise<T>;

/**
 * Walks the request's target tree (conditions on its metadata and body, fallback, load balancing with the
 * clock's random), trying each leaf with its own retry policy within the request's deadline. Chat, dialects and
 * pass-through route alike; only what one try does differs.
 */
export function routeAttempts<T>(context: GatewayContext, clock: RetryClock, attempt: LeafAttempt<T>): Promise<RouteResult<T>> {
  return routeRequest(context.routeTree, {
    conditionInput: { metadata: context.options.metadata, params: context.body },
    random: clock.random,
    attemptLeaf: (node) => withRetries(node.settings.retry, context.deadline, (retry) => attempt(node.path, node.settings, retry), clock),
  });
}

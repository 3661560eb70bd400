import { GatewayError } from '../../http/errors.js';
import { configError } from '../config/errors.js';
import type { RouteNode } from '../config/target-tree.js';
import { matchesQuery, type ConditionInput } from './conditions.js';
import { RetriedFailure } from './retry.js';

export type LeafNode = Extract<RouteNode, { kind: 'leaf' }>;

export interface RouteResult<T> {
  value: T;
  leaf: LeafNode;
  retries: number;
}

export interface RouteDependencies<T> {
  conditionInput: ConditionInput;
  /** Uniform in [0, 1): the load-balancing choice (seedable in tests). */
  random: () => number;
  /** Tries one leaf with its retries; throws RetriedFailure when it gave up. */
  attemptLeaf: (leaf: LeafNode) => Promise<{ value: T; retries: number }>;
}

/** A failure of the whole route: the last error, and the retries of the leaf that produced it. */
export class RouteFailure extends Error {
  constructor(
    readonly error: GatewayError,
    readonly retries: number,
  ) {
    super(error.message);
  }
}

/**
 * Walks the target tree. `single` takes its first target; `fallback` tries targets in order and moves on for
 * any upstream failure (or only the `on_status_codes` given), never for gw's own request errors unless the
 * codes name them; `loadbalance` picks one target by weight and returns its result — nest it in a fallback to
 * fall through; `conditional` takes the first matching condition's target, else `default`.
 */
export async function routeRequest<T>(node: RouteNode, deps: RouteDependencies<T>): Promise<RouteResult<T>> {
  if (node.kind === 'leaf') {
    try {
      const { value, retries } = await deps.attemptLeaf(node);
      return { value, leaf: node, retries };
    } catch (thrown) {
      if (thrown instanceof RetriedFailure) throw new RouteFailure(thrown.error, thrown.retries);
      if (thrown instanceof GatewayError) throw new RouteFailure(thrown, 0);
      throw thrown;
    }
  }
  const { strategy, children } = node;
  switch (strategy.mode) {
    case 'single':
      return routeRequest(children[0], deps);
    case 'loadbalance':
      return routeRequest(pickWeighted(children, deps.random), deps);
    case 'conditional':
      return routeRequest(pickConditional(node, deps.conditionInput), deps);
    case 'fallback': {
      let last: RouteFailure | undefined;
      for (const child of children) {
        try {
          return await routeRequest(child, deps);
        } catch (thrown) {
          if (!(thrown instanceof RouteFailure)) throw thrown;
          last = thrown;
          if (!fallsBack(thrown.error, strategy.on_status_codes)) throw thrown;
        }
      }
      throw last!;
    }
  }
}

export function fallsBack(error: GatewayError, onStatusCodes: readonly number[] | undefined): boolean {
  if (error.code === 'client_closed_request') return false;
  if (onStatusCodes) return onStatusCodes.includes(error.status);
  return error.upstream;
}

/** Weighted random choice; targets with weight 0 are never chosen (validation ensures one is above 0). */
export function pickWeighted<T extends { weight: number }>(children: readonly T[], random: () => number): T {
  const total = children.reduce((sum, child) => sum + child.weight, 0);
  let point = random() * total;
  for (const child of children) {
    if (child.weight <= 0) continue;
    if (point < child.weight) return child;
    point -= child.weight;
  }
  return children.filter((child) => child.weight > 0).at(-1)!;
}

function pickConditional(node: Extract<RouteNode, { kind: 'strategy' }>, input: ConditionInput): RouteNode {
  const byName = (name: string) => node.children.find((child) => child.name === name)!;
  for (const condition of node.strategy.conditions ?? []) {
    if (matchesQuery(condition.query, input)) return byName(condition.then);
  }
  if (node.strategy.default !== undefined) return byName(node.strategy.default);
  throw configError('AB0112', `${node.path}.strategy`, 'no condition matched this request and there is no default target');
}

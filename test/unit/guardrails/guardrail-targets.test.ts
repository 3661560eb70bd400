import { describe, expect, it } from 'vitest';
import { buildRouteTree, type RouteNode } from '../../../shared/gateway/config/target-tree.js';
import { configSchema } from '../../../shared/gateway/config/schema.js';
import { pruneDeniedTargets, type LeafRun } from '../../../shared/gateway/guardrail-targets.js';
import { runGuardrails } from '../../../shared/guardrails/run.js';
import type { Guardrail } from '../../../shared/guardrails/schemas.js';

const guardrails: Record<string, Guardrail> = {
  'grd-notemp': { id: 'grd-notemp', name: 'no temperature', version: 1, type: 'request_params_check', config: { params: { blockedKeys: ['temperature'] } } },
  'grd-prefix': { id: 'grd-prefix', name: 'prefix', version: 1, type: 'add_prefix', config: { prefix: '> ' } },
};
const leaf = (name: string, extra: Record<string, unknown> = {}) => ({ name, provider: 'openai', api_key: 'sk', ...extra });

function prune(config: unknown, body: Record<string, unknown>, metadata: Record<string, string> = {}) {
  const tree = buildRouteTree(configSchema.parse(config), { azure: {}, vertex: {}, aws: {}, overrideParams: {} });
  const runs = new Map<string, LeafRun>();
  const visit = (node: RouteNode): void => {
    if (node.kind === 'strategy') return node.children.forEach(visit);
    const ids = node.settings.inputGuardrails ?? [];
    runs.set(node.path, { key: ids.join(','), run: runGuardrails(ids.map((id) => guardrails[id]), 'chat', body), overridden: false });
  };
  visit(tree);
  return pruneDeniedTargets(tree, runs, body, metadata);
}

const leaves = (node: RouteNode): string[] => (node.kind === 'leaf' ? [node.path] : node.children.flatMap(leaves));
const hot = { model: 'm', messages: [{ role: 'user', content: 'Hi' }], temperature: 1 };

describe('pruneDeniedTargets', () => {
  it('loadbalance keeps only the targets that may take the request; none with weight left denies', () => {
    const config = { strategy: { mode: 'loadbalance' }, targets: [leaf('a', { input_guardrails: ['grd-notemp'] }), leaf('b')] };
    expect(leaves(prune(config, hot).route!.tree)).toEqual(['config.targets[1]']);
    const zero = { strategy: { mode: 'loadbalance' }, targets: [leaf('a', { input_guardrails: ['grd-notemp'] }), leaf('b', { weight: 0 })] };
    expect(prune(zero, hot).denied?.guardrail.id).toBe('grd-notemp');
  });

  it('conditional is decided at once when a target was denied: the choice stays, or its denial answers', () => {
    const config = {
      strategy: { mode: 'conditional', conditions: [{ query: { 'metadata.tier': { $eq: 'gold' } }, then: 'gold' }], default: 'basic' },
      targets: [leaf('gold'), leaf('basic', { input_guardrails: ['grd-notemp'] })],
    };
    const gold = prune(config, hot, { tier: 'gold' });
    expect(gold.route!.tree).toMatchObject({ kind: 'leaf', path: 'config.targets[0]' });
    expect(prune(config, hot).denied?.guardrail.id).toBe('grd-notemp');
    // Nothing denied: the conditional node is left for routing to decide.
    expect(prune(config, { model: 'm', messages: [] }).route!.tree).toMatchObject({ kind: 'strategy', strategy: { mode: 'conditional' } });
  });

  it('gives each target its own transformed body when their guardrails differ', () => {
    const config = { strategy: { mode: 'fallback' }, targets: [leaf('a', { input_guardrails: ['grd-prefix'], override_params: { model: 'x' } }), leaf('b')] };
    const { route } = prune(config, { model: 'm', messages: [{ role: 'user', content: 'Hi' }] });
    expect(route!.sharedBody).toBeUndefined();
    const [first, second] = (route!.tree as Extract<RouteNode, { kind: 'strategy' }>).children;
    expect(first.settings.overrideParams).toEqual({ messages: [{ role: 'user', content: '> Hi' }], model: 'x' });
    expect(second.settings.overrideParams).toEqual({});
  });

  it('one list for every target: its body is the request body', () => {
    const config = { input_guardrails: ['grd-prefix'], strategy: { mode: 'fallback' }, targets: [leaf('a'), leaf('b')] };
    const { route } = prune(config, { model: 'm', messages: [{ role: 'user', content: 'Hi' }] });
    expect(route!.sharedBody?.messages).toEqual([{ role: 'user', content: '> Hi' }]);
    expect(route!.removed).toBe(0);
  });
});

import { describe, expect, it } from 'vitest';
import { GatewayError } from '../../../shared/http/errors.js';
import { CONFIG_ERROR_CODES } from '../../../shared/gateway/config/errors.js';
import { parseInlineConfig } from '../../../shared/gateway/config/parse-config.js';
import { buildRouteTree, type LeafSettings } from '../../../shared/gateway/config/target-tree.js';

const noHeaders: LeafSettings = { azure: {}, vertex: {}, aws: {}, overrideParams: {} };

function failure(config: unknown, headers = noHeaders): GatewayError {
  try {
    buildRouteTree(parseInlineConfig(typeof config === 'string' ? config : JSON.stringify(config)), headers);
  } catch (error) {
    if (error instanceof GatewayError) return error;
    throw error;
  }
  throw new Error('expected the config to be refused');
}

const openai = { provider: 'openai', api_key: 'sk-1' };

describe('config validation: every AB01 error', () => {
  it.each([
    ['AB0101', '{"strategy":', 'x-gw-config', /not valid JSON/],
    ['AB0102', { ...openai, retries: 3 }, 'config.retries', /unknown field "retries"/],
    ['AB0102', { strategy: { mode: 'fallback' }, targets: [{ ...openai, extra: true }] }, 'config.targets[0].extra', /unknown field/],
    ['AB0103', { strategy: { mode: 'roundrobin' }, targets: [openai] }, 'config.strategy.mode', /"single", "fallback", "loadbalance", "conditional"/],
    ['AB0103', { ...openai, cache: { mode: 'fuzzy' } }, 'config.cache.mode', /"simple", "semantic"/],
    ['AB0104', { strategy: {}, targets: [openai] }, 'config.strategy.mode', /required/],
    ['AB0104', { strategy: { mode: 'conditional' }, targets: [{ ...openai, name: 'a' }] }, 'config.strategy.conditions', /needs conditions/],
    ['AB0104', { ...openai, retry: {} }, 'config.retry.attempts', /required/],
    ['AB0105', { ...openai, weight: 'heavy' }, 'config.weight', /expected number/],
    ['AB0105', '[1,2]', 'config', /JSON object/],
    ['AB0106', { ...openai, retry: { attempts: 6 } }, 'config.retry.attempts', /5/],
    ['AB0106', { ...openai, request_timeout: 0 }, 'config.request_timeout', /1/],
    ['AB0106', { ...openai, cache: { mode: 'simple', max_age: 0 } }, 'config.cache.max_age', /1/],
    ['AB0106', { ...openai, weight: -1 }, 'config.weight', /0/],
    ['AB0106', { strategy: { mode: 'fallback' }, targets: [] }, 'config.targets', /1/],
    ['AB0107', { provider: 'open-ai' }, 'config.provider', /valid providers: openai/],
    ['AB0108', { strategy: { mode: 'conditional', conditions: [{ query: { 'metadata.x': { $like: 'a' } }, then: 'a' }] }, targets: [{ ...openai, name: 'a' }] }, 'config.strategy.conditions[0].query', /unknown operator \$like/],
    ['AB0108', { strategy: { mode: 'conditional', conditions: [{ query: { 'metadata.x': 'y' }, then: 'missing' }] }, targets: [{ ...openai, name: 'a' }] }, 'config.strategy.conditions[0].then', /no target named "missing"/],
    ['AB0108', { strategy: { mode: 'conditional', conditions: [{ query: { 'metadata.x': { $regex: '(' } }, then: 'a' }] }, targets: [{ ...openai, name: 'a' }] }, 'config.strategy.conditions[0].query', /invalid \$regex/],
    ['AB0108', { strategy: { mode: 'conditional', conditions: [{ query: { user: 'y' }, then: 'a' }] }, targets: [{ ...openai, name: 'a' }] }, 'config.strategy.conditions[0].query', /metadata.<key> or params.<key>/],
    ['AB0108', { strategy: { mode: 'conditional', conditions: [{ query: { 'metadata.x': 'y' }, then: 'a' }], default: 'b' }, targets: [{ ...openai, name: 'a' }] }, 'config.strategy.default', /no target named "b"/],
    ['AB0109', { strategy: { mode: 'fallback' }, ...openai }, 'config.targets', /needs targets/],
    ['AB0109', { targets: [openai] }, 'config.strategy', /need a strategy/],
    ['AB0110', { strategy: { mode: 'loadbalance' }, targets: [{ ...openai, weight: 0 }, { ...openai, weight: 0 }] }, 'config.targets', /weight > 0/],
    ['AB0113', { strategy: { mode: 'fallback' }, targets: [{ override_params: { model: 'x' } }] }, 'config.targets[0]', /names no provider/],
    ['AB0114', nest(7), 'config.targets[0].targets[0].targets[0].targets[0].targets[0].targets[0]', /at most 5 levels/],
    ['AB0115', { ...openai, custom_host: 'http://169.254.169.254' }, 'config.custom_host', /always refused/],
    ['AB0115', { ...openai, custom_host: 'file:///etc/passwd' }, 'config.custom_host', /http or https/],
  ])('%s for %j', (code, config, param, message) => {
    const error = failure(config);
    expect(error.status).toBe(400);
    expect(error.code).toBe(code);
    expect(error.param).toBe(param);
    expect(error.message).toMatch(message);
    expect(CONFIG_ERROR_CODES).toHaveProperty(code);
  });

  it('builds a valid nested tree with inheritance', () => {
    const tree = buildRouteTree(
      parseInlineConfig(
        JSON.stringify({
          retry: { attempts: 2 },
          override_params: { temperature: 0 },
          provider: 'openai',
          api_key: 'sk-parent',
          strategy: { mode: 'fallback' },
          targets: [
            { override_params: { model: 'gpt-4o' } },
            { provider: 'groq', override_params: { model: 'llama' }, retry: { attempts: 0 } },
          ],
        }),
      ),
      noHeaders,
    );
    expect(tree.kind).toBe('strategy');
    if (tree.kind !== 'strategy') return;
    const [first, second] = tree.children;
    expect(first.settings).toMatchObject({ provider: 'openai', apiKey: 'sk-parent', overrideParams: { temperature: 0, model: 'gpt-4o' }, retry: { attempts: 2 } });
    // A different provider never inherits the parent's credential.
    expect(second.settings.provider).toBe('groq');
    expect(second.settings.apiKey).toBeUndefined();
    expect(second.settings.retry).toEqual({ attempts: 0 });
    expect(second.settings.overrideParams).toEqual({ temperature: 0, model: 'llama' });
  });

  it('lets a config without provider inherit the request headers', () => {
    const tree = buildRouteTree(parseInlineConfig('{"retry":{"attempts":3}}'), { ...noHeaders, provider: 'openai', apiKey: 'sk-header' });
    expect(tree).toMatchObject({ kind: 'leaf', path: 'config', settings: { provider: 'openai', apiKey: 'sk-header', retry: { attempts: 3 } } });
  });
});

function nest(depth: number): unknown {
  let node: Record<string, unknown> = { ...openai };
  for (let i = 0; i < depth; i++) node = { strategy: { mode: 'single' }, targets: [node] };
  return node;
}

import { describe, expect, it } from 'vitest';
import { parseInlineConfig } from '../../../shared/gateway/config/parse-config.js';
import { buildRouteTree, type LeafSettings } from '../../../shared/gateway/config/target-tree.js';
import type { GatewayContext } from '../../../shared/gateway/context.js';
import { requestValues } from '../../../shared/gateway/enforcement/request-values.js';

const headers = (overrides: Partial<LeafSettings> = {}): LeafSettings => ({ azure: {}, vertex: {}, aws: {}, overrideParams: {}, ...overrides });

/** The parts of a request context the policy values are read from. */
function context(config: unknown, options: { headerLeaf?: Partial<LeafSettings>; metadata?: Record<string, string>; model?: string } = {}): GatewayContext {
  const tree = buildRouteTree(config === undefined ? undefined : parseInlineConfig(JSON.stringify(config)), headers(options.headerLeaf ?? { provider: 'openai' }));
  return {
    principal: { keyId: 'key-1', workspaceId: 'ws-1', organisationId: 'org-1', kind: 'workspace', scopes: new Set() },
    options: { metadata: options.metadata ?? {} },
    body: { model: options.model ?? 'gpt-4o', messages: [] },
    routeTree: tree,
  } as unknown as GatewayContext;
}

async function valuesOf(target: GatewayContext): Promise<Record<string, string | undefined>> {
  const read = await requestValues(target, []);
  return Object.fromEntries(['api_key', 'workspace_id', 'virtual_key', 'provider', 'model', 'metadata._user', 'metadata.none'].map((key) => [key, read(key)]));
}

describe('the values policies see, before routing', () => {
  it('without a config: the key, the workspace, the header provider, the body model and the metadata', async () => {
    expect(await valuesOf(context(undefined, { headerLeaf: { provider: 'mistral' }, metadata: { _user: 'alice' } }))).toEqual({
      api_key: 'key-1',
      workspace_id: 'ws-1',
      virtual_key: undefined,
      provider: 'mistral-ai',
      model: 'gpt-4o',
      'metadata._user': 'alice',
      'metadata.none': undefined,
    });
  });

  it('a fallback: the first target, with its override_params model', async () => {
    const config = { strategy: { mode: 'fallback' }, targets: [{ provider: 'anthropic', api_key: 'k', override_params: { model: 'claude-sonnet-4-5' } }, { provider: 'openai', api_key: 'k' }] };
    expect(await valuesOf(context(config))).toMatchObject({ provider: 'anthropic', model: 'claude-sonnet-4-5' });
  });

  it('a conditional: the branch the request takes', async () => {
    const config = {
      strategy: { mode: 'conditional', conditions: [{ query: { 'metadata._user': 'alice' }, then: 'smart' }], default: 'cheap' },
      targets: [
        { name: 'smart', provider: 'openai', api_key: 'k', override_params: { model: 'gpt-4o' } },
        { name: 'cheap', provider: 'groq', api_key: 'k', override_params: { model: 'llama-3.1-8b-instant' } },
      ],
    };
    expect(await valuesOf(context(config, { metadata: { _user: 'alice' } }))).toMatchObject({ provider: 'openai', model: 'gpt-4o' });
    expect(await valuesOf(context(config, { metadata: { _user: 'bob' } }))).toMatchObject({ provider: 'groq', model: 'llama-3.1-8b-instant' });
  });

  it('a loadbalance: a value only where every target it may pick agrees', async () => {
    const config = { strategy: { mode: 'loadbalance' }, targets: [{ provider: 'openai', api_key: 'a', weight: 1 }, { provider: 'openai', api_key: 'b', weight: 1, override_params: { model: 'gpt-4o-mini' } }, { provider: 'anthropic', api_key: 'c', weight: 0 }] };
    expect(await valuesOf(context(config))).toMatchObject({ provider: 'openai', model: undefined });
  });
});

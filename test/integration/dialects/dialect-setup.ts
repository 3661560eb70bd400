import { afterAll, beforeAll } from 'vitest';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';
import { anthropicMockHandler } from '../../support/mock-anthropic.js';
import { openAIDialectsMockHandler } from '../../support/mock-openai-dialects.js';
import { startMockUpstream, type MockUpstream } from '../../support/mock-upstream.js';

export interface DialectRig {
  gateway: TestGateway;
  /** Speaks Anthropic's Messages API. */
  anthropic: MockUpstream;
  /** Speaks OpenAI's Chat Completions and Responses APIs. */
  openai: MockUpstream;
  /** Always fails with a 500 in OpenAI's error shape (for fallback tests). */
  failing: MockUpstream;
}

/** The local gw with two mock providers (one per wire format) and a failing one, for a test file. */
export function useDialectRig(onStart: (rig: DialectRig) => void): void {
  const rig: Partial<DialectRig> = {};
  beforeAll(async () => {
    rig.anthropic = await startMockUpstream(anthropicMockHandler());
    rig.openai = await startMockUpstream(openAIDialectsMockHandler());
    rig.failing = await startMockUpstream(() => ({ status: 500, json: { error: { message: 'mock is down', type: 'server_error', code: null } } }));
    rig.gateway = await startTestGateway();
    onStart(rig as DialectRig);
  });
  afterAll(async () => {
    await rig.gateway?.close();
    await Promise.all([rig.anthropic?.close(), rig.openai?.close(), rig.failing?.close()]);
  });
}

/** Headers that send a call to one mock as the given provider. */
export function targetHeaders(provider: 'anthropic' | 'openai', upstream: MockUpstream): Record<string, string> {
  return { 'x-gw-provider': provider, 'x-gw-custom-host': upstream.url };
}

/** A fallback config: the failing mock first (as `first`), then `then` on its mock. */
export function fallbackConfig(first: 'anthropic' | 'openai', rig: DialectRig, then: 'anthropic' | 'openai'): string {
  return JSON.stringify({
    strategy: { mode: 'fallback' },
    targets: [
      { provider: first, api_key: 'provider-key-1', custom_host: rig.failing.url },
      { provider: then, api_key: 'provider-key-2', custom_host: (then === 'anthropic' ? rig.anthropic : rig.openai).url },
    ],
  });
}

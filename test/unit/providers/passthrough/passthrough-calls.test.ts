import { describe, expect, it } from 'vitest';
import { PASSTHROUGH_ENDPOINTS, type PassthroughInput } from '../../../../shared/providers/passthrough-types.js';
import { passthroughSupport, providersServing } from '../../../../shared/providers/passthrough-registry.js';
import { PROVIDER_SLUGS } from '../../../../shared/providers/registry.js';
import { GatewayError } from '../../../../shared/http/errors.js';

const body = new Uint8Array([0, 1, 2, 255]);
const input = (overrides: Partial<PassthroughInput> = {}): PassthroughInput => ({
  endpoint: 'audio/transcriptions',
  body,
  contentType: 'multipart/form-data; boundary=abc',
  target: { provider: 'openai', apiKey: 'sk-1' },
  forwardHeaders: {},
  ...overrides,
});

describe('which providers serve the pass-through endpoints', () => {
  it('marks OpenAI and Azure OpenAI, and refuses the translating providers', () => {
    expect(passthroughSupport('openai')?.endpoints).toEqual(['images/generations', 'images/edits', 'audio/speech', 'audio/transcriptions', 'audio/translations', 'moderations']);
    expect(passthroughSupport('azure-openai')?.endpoints).not.toContain('moderations');
    for (const slug of ['anthropic', 'bedrock', 'google', 'vertex-ai', 'deepseek', 'openrouter']) expect(passthroughSupport(slug), slug).toBeUndefined();
  });

  it('every endpoint has at least one provider, and every marked provider is a registered one', () => {
    for (const endpoint of PASSTHROUGH_ENDPOINTS) expect(providersServing(endpoint).length, endpoint).toBeGreaterThan(0);
    expect(providersServing('rerank').sort()).toEqual(['cohere', 'jina-ai', 'together-ai', 'vllm', 'voyage-ai']);
    for (const endpoint of PASSTHROUGH_ENDPOINTS) for (const slug of providersServing(endpoint)) expect(PROVIDER_SLUGS).toContain(slug);
  });
});

describe('the pass-through call', () => {
  it('OpenAI-compatible: {base}/{endpoint}, Bearer token, the body and content-type untouched', () => {
    const call = passthroughSupport('openai')!.buildCall(input({ forwardHeaders: { 'x-extra': '1' } }));
    expect(call).toEqual({
      url: 'https://api.openai.com/v1/audio/transcriptions',
      headers: { 'x-extra': '1', 'content-type': 'multipart/form-data; boundary=abc', authorization: 'Bearer sk-1' },
      body,
    });
    expect(passthroughSupport('together-ai')!.buildCall(input({ endpoint: 'rerank', contentType: 'application/json' })).url).toBe('https://api.together.xyz/v1/rerank');
  });

  it('a provider without a public endpoint needs x-gw-custom-host', () => {
    const error = (() => {
      try {
        passthroughSupport('vllm')!.buildCall(input());
      } catch (thrown) {
        return thrown;
      }
    })();
    expect(error).toBeInstanceOf(GatewayError);
    expect((error as GatewayError).code).toBe('custom_host_required');
    expect(passthroughSupport('vllm')!.buildCall(input({ target: { provider: 'vllm', customHost: 'http://10.0.0.5:8000/v1/' } })).url).toBe('http://10.0.0.5:8000/v1/audio/transcriptions');
  });

  it('Azure OpenAI: the deployment URL with api-version, the key as api-key and never as Bearer', () => {
    const call = passthroughSupport('azure-openai')!.buildCall(
      input({ endpoint: 'images/generations', contentType: 'application/json', target: { provider: 'azure-openai', apiKey: 'az-key', azure: { resourceName: 'res', deploymentId: 'dalle 3', apiVersion: '2025-04-01-preview' } } }),
    );
    expect(call.url).toBe('https://res.openai.azure.com/openai/deployments/dalle%203/images/generations?api-version=2025-04-01-preview');
    expect(call.headers).toEqual({ 'content-type': 'application/json', 'api-key': 'az-key' });
    expect(() => passthroughSupport('azure-openai')!.buildCall(input({ target: { provider: 'azure-openai', azure: { resourceName: 'res' } } }))).toThrow(/x-gw-azure-deployment-id/);
  });
});

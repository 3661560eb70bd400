import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { voyageAIAdapter } from '../../../../shared/providers/voyage-ai/adapter.js';
import { voyageAIPassthrough } from '../../../../shared/providers/voyage-ai/passthrough.js';
import { adapterInput, gatewayErrorOf } from '../google/helpers.js';

// Fixtures written from Voyage AI's API reference examples (embeddings, rerank).
const answer = JSON.parse(readFileSync(fileURLToPath(new URL('../../../fixtures/voyage-ai/embeddings.json', import.meta.url)), 'utf8')) as unknown;
const voyage = (body: Record<string, unknown>) => adapterInput(body, { endpoint: 'embeddings', target: { provider: 'voyage-ai', apiKey: 'pa-key' } });

describe('Voyage AI embeddings and rerank', () => {
  it('builds /v1/embeddings with Bearer auth, input_type and dimensions as output_dimension', () => {
    const call = voyageAIAdapter.buildCall(voyage({ model: 'voyage-3.5', input: 'hi', input_type: 'query', dimensions: 512, encoding_format: 'base64' })) as { url: string; headers: Record<string, string>; body: string };
    expect(call.url).toBe('https://api.voyageai.com/v1/embeddings');
    expect(call.headers.authorization).toBe('Bearer pa-key');
    expect(JSON.parse(call.body)).toEqual({ model: 'voyage-3.5', input: ['hi'], input_type: 'query', output_dimension: 512 });
  });

  it('maps the list in index order with usage.prompt_tokens, and base64 as OpenAI float32', () => {
    expect(voyageAIAdapter.toOpenAIResponse!(voyage({ model: 'voyage-3.5', input: ['a', 'b'] }), answer)).toMatchObject({
      data: [{ index: 0, embedding: [0.125, 0.75] }, { index: 1, embedding: [0.25, -0.5] }],
      usage: { prompt_tokens: 10, total_tokens: 10 },
    });
    const packed = voyageAIAdapter.toOpenAIResponse!(voyage({ model: 'voyage-3.5', input: ['a', 'b'], encoding_format: 'base64' }), answer) as { data: Array<{ embedding: string }> };
    expect([...new Float32Array(new Uint8Array(Buffer.from(packed.data[0].embedding, 'base64')).buffer)]).toEqual([0.125, 0.75]);
  });

  it('refuses a bad input_type with a 400 and maps {detail} errors', () => {
    expect(gatewayErrorOf(() => voyageAIAdapter.buildCall(voyage({ model: 'voyage-3.5', input: 'x', input_type: 'passage' }))).param).toBe('input_type');
    expect(voyageAIAdapter.toOpenAIError(401, { detail: 'Provided API key is invalid.' })).toEqual({ message: 'Provided API key is invalid.', code: 'invalid_api_key', param: null });
  });

  it('rerank: top_n is renamed top_k on the way to /v1/rerank', () => {
    const body = new TextEncoder().encode('{"model":"rerank-2.5","query":"q","documents":["a","b"],"top_n":1}');
    const call = voyageAIPassthrough.buildCall({ endpoint: 'rerank', body, contentType: 'application/json', target: { provider: 'voyage-ai', apiKey: 'pa-key' }, forwardHeaders: {} });
    expect(call.url).toBe('https://api.voyageai.com/v1/rerank');
    expect(JSON.parse(String(call.body))).toEqual({ model: 'rerank-2.5', query: 'q', documents: ['a', 'b'], top_k: 1 });
  });
});

describe('Voyage AI rerank answer shape', () => {
  it('rerank answer shape: data → results like Cohere and Jina, a returned document as {text}', () => {
    const mapped = voyageAIPassthrough.translateAnswer!({
      endpoint: 'rerank',
      contentType: 'application/json',
      fields: {},
      body: new TextEncoder().encode(JSON.stringify({ object: 'list', data: [{ relevance_score: 0.9, index: 1, document: 'Paris' }], model: 'rerank-2.5', usage: { total_tokens: 5 } })),
    });
    expect(mapped.contentType).toBe('application/json');
    expect(JSON.parse(String(mapped.body))).toEqual({ model: 'rerank-2.5', results: [{ index: 1, relevance_score: 0.9, document: { text: 'Paris' } }], usage: { total_tokens: 5 } });
  });
});

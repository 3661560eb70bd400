import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { jinaAIAdapter } from '../../../../shared/providers/jina-ai/adapter.js';
import { jinaAIPassthrough } from '../../../../shared/providers/jina-ai/passthrough.js';
import { adapterInput, gatewayErrorOf } from '../google/helpers.js';

// Fixtures written from Jina AI's API reference examples (embeddings, rerank).
const answer = JSON.parse(readFileSync(fileURLToPath(new URL('../../../fixtures/jina-ai/embeddings.json', import.meta.url)), 'utf8')) as unknown;
const jina = (body: Record<string, unknown>) => adapterInput(body, { endpoint: 'embeddings', target: { provider: 'jina-ai', apiKey: 'jina_key' } });

describe('Jina AI embeddings and rerank', () => {
  it('builds /v1/embeddings asking for floats, with task and dimensions', () => {
    const call = jinaAIAdapter.buildCall(jina({ model: 'jina-embeddings-v3', input: ['a', 'b'], task: 'retrieval.query', dimensions: 256, encoding_format: 'base64' })) as { url: string; headers: Record<string, string>; body: string };
    expect(call.url).toBe('https://api.jina.ai/v1/embeddings');
    expect(call.headers.authorization).toBe('Bearer jina_key');
    expect(JSON.parse(call.body)).toEqual({ model: 'jina-embeddings-v3', input: ['a', 'b'], embedding_type: 'float', task: 'retrieval.query', dimensions: 256 });
  });

  it('maps the answer to OpenAI embeddings with usage, and refuses an unknown task or token input', () => {
    expect(jinaAIAdapter.toOpenAIResponse!(jina({ model: 'jina-embeddings-v3', input: ['a', 'b'] }), answer)).toMatchObject({
      object: 'list',
      data: [{ index: 0, embedding: [0.5, 0.25] }, { index: 1, embedding: [-0.125, 1] }],
      usage: { prompt_tokens: 14, total_tokens: 14 },
    });
    expect(gatewayErrorOf(() => jinaAIAdapter.buildCall(jina({ model: 'm', input: 'x', task: 'poetry' }))).param).toBe('task');
    expect(gatewayErrorOf(() => jinaAIAdapter.buildCall(jina({ model: 'm', input: [[1, 2]] }))).param).toBe('input');
    expect(jinaAIAdapter.toOpenAIError(402, { detail: 'Insufficient balance' })).toEqual({ message: 'Insufficient balance', code: 'payment_required', param: null });
  });

  it('rerank goes to /v1/rerank unchanged (Jina speaks the Cohere shape)', () => {
    const body = new TextEncoder().encode('{"model":"jina-reranker-v2-base-multilingual","query":"q","documents":["a"],"top_n":1}');
    const call = jinaAIPassthrough.buildCall({ endpoint: 'rerank', body, contentType: 'application/json', target: { provider: 'jina-ai', apiKey: 'jina_key' }, forwardHeaders: {} });
    expect(call).toMatchObject({ url: 'https://api.jina.ai/v1/rerank', headers: { authorization: 'Bearer jina_key' }, body });
  });
});

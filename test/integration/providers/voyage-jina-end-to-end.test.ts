import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';
import { startMockUpstream, type MockUpstream, type ScriptedResponse } from '../../support/mock-upstream.js';

// Voyage AI and Jina AI through gw's HTTP server, each against a mock provider reached through x-gw-custom-host.
const fixture = (name: string) => JSON.parse(readFileSync(fileURLToPath(new URL(`../../fixtures/${name}`, import.meta.url)), 'utf8')) as unknown;

let gateway: TestGateway;
let upstream: MockUpstream;

beforeAll(async () => {
  upstream = await startMockUpstream((request): ScriptedResponse => {
    const auth = String(request.headers.authorization);
    const provider = auth.includes('pa-') ? 'voyage-ai' : 'jina-ai';
    if (request.path === '/v1/embeddings') return { json: fixture(`${provider}/embeddings.json`) };
    if (request.path === '/v1/rerank') return { json: fixture(`${provider}/rerank.json`) };
    return { status: 404, json: { detail: 'Not Found' } };
  });
  gateway = await startTestGateway();
});
afterAll(async () => {
  await gateway?.close();
  await upstream?.close();
});

const post = (provider: string, key: string, path: string, body: unknown) =>
  fetch(`${gateway.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-gw-api-key': gateway.apiKey, 'x-gw-provider': provider, 'x-gw-custom-host': upstream.url, authorization: `Bearer ${key}` },
    body: JSON.stringify(body),
  });

describe('Voyage AI and Jina AI end to end', () => {
  it('voyage: embeddings and rerank (top_n sent as top_k)', async () => {
    const embedded = await post('voyage', 'pa-test', '/v1/embeddings', { model: 'voyage-3.5', input: ['a', 'b'], input_type: 'document' });
    expect(embedded.status).toBe(200);
    expect(await embedded.json()).toMatchObject({ data: [{ index: 0, embedding: [0.125, 0.75] }, { index: 1 }], usage: { prompt_tokens: 10 } });
    expect(upstream.requests.at(-1)).toMatchObject({ path: '/v1/embeddings', json: { input_type: 'document' } });

    const reranked = await post('voyage-ai', 'pa-test', '/v1/rerank', { model: 'rerank-2.5', query: 'q', documents: ['a', 'b'], top_n: 2 });
    expect(reranked.status).toBe(200);
    // rerank answer shape: the same `results` as Cohere and Jina, not Voyage's own `data`
    const voyageRanked = (await reranked.json()) as Record<string, unknown>;
    expect(voyageRanked).toEqual({ model: 'rerank-2.5', results: [{ index: 0, relevance_score: 0.4375 }, { index: 1, relevance_score: 0.421875 }], usage: { total_tokens: 26 } });
    expect(upstream.requests.at(-1)?.json).toMatchObject({ top_k: 2 });
  });

  it('jina: embeddings and rerank (pass-through to a provider that serves no chat is not refused as chat)', async () => {
    const embedded = await post('jina', 'jina_test', '/v1/embeddings', { model: 'jina-embeddings-v3', input: ['a', 'b'], task: 'retrieval.passage' });
    expect(embedded.status).toBe(200);
    expect(await embedded.json()).toMatchObject({ data: [{ embedding: [0.5, 0.25] }, { embedding: [-0.125, 1] }], usage: { prompt_tokens: 14 } });
    expect(upstream.requests.at(-1)?.json).toMatchObject({ embedding_type: 'float', task: 'retrieval.passage' });

    const reranked = await post('jina-ai', 'jina_test', '/v1/rerank', { model: 'jina-reranker-v2-base-multilingual', query: 'q', documents: ['a', 'b'], top_n: 2 });
    expect(reranked.status).toBe(200);
    expect(await reranked.json()).toMatchObject({ results: [{ index: 1, relevance_score: 0.9172 }, { index: 0 }] });
  });
});

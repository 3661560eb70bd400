import { DeleteTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { settings } from '../../../shared/settings.js';
import { call, createKey, createWorkspace, type CreatedKey } from '../control-plane/policies-support.js';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';
import { bagOfWordsEmbedding } from '../../support/mock-embeddings.js';
import { faultInjectingHandler } from '../../support/fault-mock.js';
import { sse, startMockUpstream, type MockUpstream, type RecordedRequest, type ScriptedResponse } from '../../support/mock-upstream.js';
import { readSseEvents } from '../../support/sse-client.js';
import { StreamAssembler } from '../../../shared/gateway/cache/stream-assembler.js';
import { drainAllBackgroundWork } from '../../../shared/observability/background.js';
import { normalise } from '../../../shared/gateway/cache/semantic.js';
import { DEFAULT_VECTOR_INDEX_SHAPE, entryPlacements, lookupBuckets } from '../../../shared/gateway/cache/vector-index/dynamo-vector-index.js';
import { exactSimilarity } from '../../../shared/gateway/cache/vector-index/exact-check.js';
import { quantise } from '../../../shared/gateway/cache/vector-index/quantise.js';
import { paddedLength, rotate } from '../../../shared/gateway/cache/vector-index/rotation.js';
import { codeBits, encodeSignCode, estimateCosine, queryPart } from '../../../shared/gateway/cache/vector-index/sign-code.js';

let gateway: TestGateway;
let upstream: MockUpstream;
let otherWorkspaceKey: CreatedKey;
const faults = faultInjectingHandler();

/** A reasoning model that answers with two parallel tool calls, streamed like DeepSeek/OpenAI do. */
function toolStream(model: string): string[] {
  const base = { id: 'chatcmpl-tools', object: 'chat.completion.chunk', created: 1_700_000_123, model };
  const chunk = (delta: Record<string, unknown>, finish: string | null = null) => ({ ...base, choices: [{ index: 0, delta, finish_reason: finish }] });
  return sse(
    chunk({ role: 'assistant', content: '' }),
    chunk({ reasoning_content: 'Two cities, ' }),
    chunk({ reasoning_content: 'two calls.' }),
    chunk({ tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name: 'weather', arguments: '' } }] }),
    chunk({ tool_calls: [{ index: 0, function: { arguments: '{"city":' } }] }),
    chunk({ tool_calls: [{ index: 0, function: { arguments: '"Paris"}' } }] }),
    chunk({ tool_calls: [{ index: 1, id: 'call_2', type: 'function', function: { name: 'weather', arguments: '{"city":"Oslo"}' } }] }),
    chunk({}, 'tool_calls'),
    { ...base, choices: [], usage: { prompt_tokens: 5, completion_tokens: 7, total_tokens: 12 } },
    '[DONE]',
  );
}

function handler(request: RecordedRequest): ScriptedResponse | Promise<ScriptedResponse> {
  const body = (request.json ?? {}) as { model?: string; input?: string | string[]; stream?: boolean };
  if (request.path.endsWith('/embeddings')) {
    const inputs = Array.isArray(body.input) ? body.input : [body.input ?? ''];
    return { json: { object: 'list', model: body.model, data: inputs.map((text, index) => ({ object: 'embedding', index, embedding: bagOfWordsEmbedding(String(text)) })), usage: { prompt_tokens: 1, total_tokens: 1 } } };
  }
  if (body.model === 'tools' && body.stream) return { chunks: toolStream('tools') };
  return faults(request);
}

beforeAll(async () => {
  upstream = await startMockUpstream(handler);
  gateway = await startTestGateway();
  const other = await createWorkspace(gateway.bootstrap.organisationId, 'cache-other');
  otherWorkspaceKey = await createKey({ organisationId: gateway.bootstrap.organisationId, workspaceId: other, scopes: ['completions:write'] });
});
afterAll(async () => {
  await gateway?.close();
  await upstream?.close();
});

let counter = 0;
const unique = () => `question ${++counter} ${Date.now()}`;
const simple = () => JSON.stringify({ provider: 'openai', api_key: 'sk', custom_host: upstream.url, cache: { mode: 'simple' } });
const chatBody = (content: string, extra: Record<string, unknown> = {}) => ({ model: 'gpt-4o-mini', messages: [{ role: 'user', content }], ...extra });
const ask = (body: unknown, headers: Record<string, string> = {}, key?: string) =>
  gateway.post('/v1/chat/completions', body, { 'x-gw-config': simple(), ...(key ? { 'x-gw-api-key': key } : {}), ...headers });
const upstreamCalls = () => upstream.requests.filter((request) => request.path.endsWith('/chat/completions')).length;

describe('simple cache', () => {
  it('misses, then hits without calling upstream, for the same request in any key order', async () => {
    const content = unique();
    const first = await ask(chatBody(content, { temperature: 0.5 }));
    expect(first.headers.get('x-gw-cache-status')).toBe('MISS');
    const original = await first.json();
    const before = upstreamCalls();
    const second = await ask({ temperature: 0.5, messages: [{ content, role: 'user' }], model: 'gpt-4o-mini' });
    expect(second.headers.get('x-gw-cache-status')).toBe('HIT');
    expect(await second.json()).toEqual(original);
    expect(upstreamCalls()).toBe(before);
  });

  it('any parameter change misses', async () => {
    const content = unique();
    await ask(chatBody(content));
    expect((await ask(chatBody(content, { temperature: 0.9 }))).headers.get('x-gw-cache-status')).toBe('MISS');
  });

  it('force refresh skips the read, calls upstream and stores the new answer', async () => {
    const content = unique();
    await ask(chatBody(content));
    const before = upstreamCalls();
    const refreshed = await ask(chatBody(content), { 'x-gw-cache-force-refresh': 'true' });
    expect(refreshed.headers.get('x-gw-cache-status')).toBe('REFRESH');
    expect(upstreamCalls()).toBe(before + 1);
    expect((await ask(chatBody(content))).headers.get('x-gw-cache-status')).toBe('HIT');
  });

  it('metadata is part of the key, unless a namespace is given', async () => {
    const content = unique();
    await ask(chatBody(content), { 'x-gw-metadata': '{"team":"a"}' });
    expect((await ask(chatBody(content), { 'x-gw-metadata': '{"team":"b"}' })).headers.get('x-gw-cache-status')).toBe('MISS');
    const spaced = unique();
    await ask(chatBody(spaced), { 'x-gw-metadata': '{"team":"a"}', 'x-gw-cache-namespace': 'faq' });
    expect((await ask(chatBody(spaced), { 'x-gw-metadata': '{"team":"b"}', 'x-gw-cache-namespace': 'faq' })).headers.get('x-gw-cache-status')).toBe('HIT');
    expect((await ask(chatBody(spaced), { 'x-gw-cache-namespace': 'other' })).headers.get('x-gw-cache-status')).toBe('MISS');
  });

  it('two workspaces never share entries', async () => {
    const content = unique();
    await ask(chatBody(content));
    expect((await ask(chatBody(content))).headers.get('x-gw-cache-status')).toBe('HIT');
    const other = await ask(chatBody(content), {}, otherWorkspaceKey.raw);
    expect(other.status).toBe(200);
    expect(other.headers.get('x-gw-cache-status')).toBe('MISS');
  });

  it('says DISABLED without a cache config', async () => {
    const response = await gateway.post('/v1/chat/completions', chatBody(unique()), { 'x-gw-provider': 'openai', 'x-gw-custom-host': upstream.url });
    expect(response.headers.get('x-gw-cache-status')).toBe('DISABLED');
  });
});

describe('streams and the cache', () => {
  it('stores a stream once it ended cleanly and replays it as SSE chunks equal to the original', async () => {
    const body = { model: 'tools', stream: true, stream_options: { include_usage: true }, messages: [{ role: 'user', content: unique() }] };
    const first = await ask(body);
    expect(first.headers.get('x-gw-cache-status')).toBe('MISS');
    const original = assemble(await readSseEvents(first));
    await drainAllBackgroundWork();
    const replay = await ask(body);
    expect(replay.headers.get('x-gw-cache-status')).toBe('HIT');
    const events = await readSseEvents(replay);
    expect(events.length).toBeGreaterThan(6);
    expect(events.at(-1)!.data).toBe('[DONE]');
    expect(assemble(events)).toEqual(original);
    // The same entry serves a non-streamed call.
    const json = await ask({ ...body, stream: false, stream_options: undefined });
    expect(json.headers.get('x-gw-cache-status')).toBe('HIT');
    expect(await json.json()).toEqual(original);
  });

  it('does not store a stream that failed', async () => {
    const body = { model: 'stream-mid-fail', stream: true, messages: [{ role: 'user', content: unique() }] };
    await readSseEvents(await ask(body));
    await drainAllBackgroundWork();
    const again = await ask(body);
    expect(again.headers.get('x-gw-cache-status')).toBe('MISS');
    await readSseEvents(again);
  });
});

describe('semantic cache', () => {
  const semantic = () =>
    JSON.stringify({ provider: 'openai', api_key: 'sk', custom_host: upstream.url, cache: { mode: 'semantic', similarity_threshold: 0.9 } });
  const askSemantic = (content: string) => gateway.post('/v1/chat/completions', chatBody(content), { 'x-gw-config': semantic() });

  it('answers a near-identical question from the cache and a different one from upstream', async () => {
    const tag = `run${Date.now()}`;
    const first = await askSemantic(`What is the capital city of France ${tag}`);
    expect(first.headers.get('x-gw-cache-status')).toBe('SEMANTIC MISS');
    await drainAllBackgroundWork();
    const similar = await askSemantic(`what is the capital city of france ${tag} ?`);
    expect(similar.headers.get('x-gw-cache-status')).toBe('SEMANTIC HIT');
    const different = await askSemantic(`Write a long poem about the deep blue ocean ${tag}`);
    expect(different.headers.get('x-gw-cache-status')).toBe('SEMANTIC MISS');
    const embeddingCall = upstream.requests.find((request) => request.path.endsWith('/embeddings'))!;
    expect((embeddingCall.json as { model: string }).model).toBe('text-embedding-3-small');
  });

  it('answers only after the exact check: an entry the index ranks above the threshold by its estimate, but below it exactly, is a miss', async () => {
    // Bag-of-words cosine 0.836 (below the 0.9 threshold); the index's sign-code estimate is 0.955 and the two share
    // a probed bucket, so an index trusted on its estimate would answer. The premise is checked first.
    const storedText = 'zulu3 charlie3 foxtrot3 india3 lima3 oscar3 romeo3 uniform3';
    const askedText = 'zulu3 charlie3 foxtrot3 india3 lima3 oscar3 zulux bravoy';
    const [stored, asked] = [storedText, askedText].map((text) => normalise(Float32Array.from(bagOfWordsEmbedding(`user: ${text}`))));
    const scope = { workspaceId: 'w', partition: 'p' };
    expect(exactSimilarity(asked, quantise(stored))).toBeLessThan(0.9);
    expect(lookupBuckets(scope, asked).some((pk) => entryPlacements(scope, 'k', stored, 0).some((placement) => placement.pk === pk))).toBe(true);
    const bits = codeBits(paddedLength(64));
    const rotatedCount = bits + DEFAULT_VECTOR_INDEX_SHAPE.tables * DEFAULT_VECTOR_INDEX_SHAPE.bitsPerTable;
    expect(estimateCosine(queryPart(rotate(asked, rotatedCount, DEFAULT_VECTOR_INDEX_SHAPE.seed), bits), encodeSignCode(rotate(stored, rotatedCount, DEFAULT_VECTOR_INDEX_SHAPE.seed), bits))).toBeGreaterThanOrEqual(0.9);

    const headers = { 'x-gw-config': semantic(), 'x-gw-cache-namespace': `exact-check-${Date.now()}` };
    const first = await gateway.post('/v1/chat/completions', chatBody(storedText), headers);
    expect(first.headers.get('x-gw-cache-status')).toBe('SEMANTIC MISS');
    await drainAllBackgroundWork();
    const near = await gateway.post('/v1/chat/completions', chatBody(askedText), headers);
    expect(near.headers.get('x-gw-cache-status')).toBe('SEMANTIC MISS');
    const same = await gateway.post('/v1/chat/completions', chatBody(storedText), headers);
    expect(same.headers.get('x-gw-cache-status')).toBe('HIT');
  });

  it('never answers one workspace from another workspace\'s semantic entries', async () => {
    const tag = `scoped${Date.now()}`;
    const first = await askSemantic(`Which river flows through Vienna ${tag}`);
    expect(first.headers.get('x-gw-cache-status')).toBe('SEMANTIC MISS');
    await drainAllBackgroundWork();
    const otherWorkspace = await gateway.post('/v1/chat/completions', chatBody(`which river flows through vienna ${tag}?`), { 'x-gw-config': semantic(), 'x-gw-api-key': otherWorkspaceKey.raw });
    expect(otherWorkspace.status).toBe(200);
    expect(otherWorkspace.headers.get('x-gw-cache-status')).toBe('SEMANTIC MISS');
    const sameWorkspace = await askSemantic(`which river flows through vienna ${tag}?`);
    expect(sameWorkspace.headers.get('x-gw-cache-status')).toBe('SEMANTIC HIT');
  });

  it('never answers across cache partitions: another model is a miss', async () => {
    const tag = `partition${Date.now()}`;
    await askSemantic(`How tall is the Eiffel tower ${tag}`);
    await drainAllBackgroundWork();
    const otherModel = await gateway.post('/v1/chat/completions', { ...chatBody(`how tall is the eiffel tower ${tag}?`), model: 'gpt-4o' }, { 'x-gw-config': semantic() });
    expect(otherModel.headers.get('x-gw-cache-status')).toBe('SEMANTIC MISS');
  });

  it('still finds an early entry after many more were added to the partition', async () => {
    const tag = `many${Date.now()}`;
    const subjects = ['apples', 'rivers', 'violins', 'glaciers', 'comets', 'tigers', 'bridges', 'deserts', 'orchids', 'volcanoes', 'harbours', 'lanterns'];
    for (const [index, subject] of subjects.entries()) {
      await askSemantic(`Tell me ${index} facts about ${subject} ${tag}`);
      await drainAllBackgroundWork();
    }
    const again = await askSemantic(`tell me 0 facts about apples ${tag}!`);
    expect(again.headers.get('x-gw-cache-status')).toBe('SEMANTIC HIT');
  });

  it('400 AB0117 when the provider has no standard embeddings model and none is configured', async () => {
    const config = JSON.stringify({ provider: 'groq', api_key: 'sk', custom_host: upstream.url, cache: { mode: 'semantic' } });
    const response = await gateway.post('/v1/chat/completions', chatBody(unique()), { 'x-gw-config': config });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe('AB0117');
  });
});

describe('a failing cache store', () => {
  it('never fails the request: gw answers uncached', async () => {
    const client = new DynamoDBClient({ endpoint: settings().GW_DYNAMODB_ENDPOINT, region: 'us-east-1' });
    await client.send(new DeleteTableCommand({ TableName: settings().GW_TABLE_CACHE }));
    const response = await ask(chatBody(unique()));
    expect(response.status).toBe(200);
    expect(response.headers.get('x-gw-cache-status')).toBe('MISS');
    const semanticConfig = JSON.stringify({ provider: 'openai', api_key: 'sk', custom_host: upstream.url, cache: { mode: 'semantic' } });
    const semantic = await gateway.post('/v1/chat/completions', chatBody(unique()), { 'x-gw-config': semanticConfig });
    expect(semantic.status).toBe(200);
    expect(semantic.headers.get('x-gw-cache-status')).toBe('SEMANTIC MISS');
    client.destroy();
    expect((await call(gateway, 'GET', '/v1/configs')).status).toBe(200);
  });
});

function assemble(events: Array<{ data: string }>): Record<string, unknown> {
  const assembler = new StreamAssembler();
  for (const event of events) if (event.data !== '[DONE]') assembler.add(JSON.parse(event.data));
  return assembler.result();
}

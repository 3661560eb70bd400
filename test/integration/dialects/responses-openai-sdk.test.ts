import { randomBytes } from 'node:crypto';
import OpenAI from 'openai';
import { zodTextFormat } from 'openai/helpers/zod';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { ANTHROPIC_MOCK_TEXT, STRUCTURED_ANSWER } from '../../support/mock-anthropic.js';
import { OPENAI_MOCK_TEXT, openAIDialectsMockHandler } from '../../support/mock-openai-dialects.js';
import { SseDecoder } from '../../../shared/http/sse.js';
import { createKey, createOrganisation } from '../control-plane/policies-support.js';
import { fallbackConfig, targetHeaders, useDialectRig, type DialectRig } from './dialect-setup.js';

let rig: DialectRig;
useDialectRig((started) => (rig = started));

type Target = 'openai' | 'anthropic';
const MODEL = 'mock-model';

/** The official openai SDK pointed at gw: the gw key as a default header, the provider key as the SDK's key. */
function client(target: Target, gwKey = rig.gateway.apiKey): OpenAI {
  return new OpenAI({
    baseURL: `${rig.gateway.url}/v1`,
    apiKey: 'sk-provider-key',
    maxRetries: 0,
    defaultHeaders: { 'x-gw-api-key': gwKey, ...targetHeaders(target, target === 'openai' ? rig.openai : rig.anthropic) },
  });
}

const weatherTool = { type: 'function' as const, name: 'get_weather', description: 'Weather of a city', strict: true, parameters: { type: 'object', properties: { location: { type: 'string' } }, required: ['location'], additionalProperties: false } };
const expectedText = (target: Target) => (target === 'openai' ? OPENAI_MOCK_TEXT : ANTHROPIC_MOCK_TEXT);

describe.each<Target>(['openai', 'anthropic'])('POST /v1/responses with the openai SDK, %s target', (target) => {
  it('responses.create answers a Response, stored and readable with its input items', async () => {
    const openai = client(target);
    const { data: response, response: raw } = await openai.responses.create({ model: MODEL, instructions: 'Be brief.', input: 'Hi' }).withResponse();
    expect(response.object).toBe('response');
    expect(response.status).toBe('completed');
    expect(response.output_text).toBe(expectedText(target));
    expect(response.usage).toMatchObject(target === 'openai' ? { input_tokens: 20, output_tokens: 10, input_tokens_details: { cached_tokens: 4 } } : { input_tokens: 30, output_tokens: 15, input_tokens_details: { cached_tokens: 5 } });
    expect(raw.headers.get('x-gw-provider')).toBe(target);
    expect(raw.headers.get('x-gw-upstream-request-id')).toBe(target === 'openai' ? 'req_openai_mock' : 'req_anthropic_mock');
    const ratelimit = target === 'openai' ? 'x-ratelimit-remaining-requests' : 'anthropic-ratelimit-requests-remaining';
    expect(raw.headers.get(ratelimit)).toBe(target === 'openai' ? '4999' : '99');

    const stored = await openai.responses.retrieve(response.id);
    expect(stored.id).toBe(response.id);
    expect(stored.output_text).toBe(expectedText(target));
    const items = await openai.responses.inputItems.list(response.id);
    expect(items.data).toHaveLength(1);
    expect(items.data[0]).toMatchObject({ type: 'message', role: 'user', content: 'Hi' });
  });

  it('responses.stream sends the typed events the SDK helper accumulates', async () => {
    const stream = client(target).responses.stream({ model: MODEL, input: 'Hi' });
    const types: string[] = [];
    const sequence: number[] = [];
    stream.on('event', (event) => {
      types.push(event.type);
      sequence.push(event.sequence_number);
    });
    const final = await stream.finalResponse();
    expect(final.output_text).toBe(expectedText(target));
    expect(types.slice(0, 5)).toEqual(['response.created', 'response.in_progress', 'response.output_item.added', 'response.content_part.added', 'response.output_text.delta']);
    expect(types.slice(-4)).toEqual(['response.output_text.done', 'response.content_part.done', 'response.output_item.done', 'response.completed']);
    expect(sequence).toEqual(sequence.map((_, index) => index));
    expect(final.usage?.output_tokens).toBeGreaterThan(0);
    // A streamed response is stored too, before `response.completed` reached the client.
    expect((await client(target).responses.retrieve(final.id)).output_text).toBe(expectedText(target));
  });

  it('responses.parse with zodTextFormat returns the parsed object', async () => {
    const Weather = z.object({ city: z.string(), temperature_c: z.number() });
    const parsed = await client(target).responses.parse({ model: MODEL, input: 'Weather in Paris as JSON', text: { format: zodTextFormat(Weather, 'weather') } });
    expect(parsed.output_parsed).toEqual(STRUCTURED_ANSWER);
  });

  it('continues a tool round trip with previous_response_id', async () => {
    const openai = client(target);
    const first = await openai.responses.create({ model: MODEL, input: 'Weather in Paris?', tools: [weatherTool] });
    const call = first.output.find((item) => item.type === 'function_call');
    expect(call).toMatchObject({ type: 'function_call', name: 'get_weather', arguments: '{"location":"Paris"}' });
    const second = await openai.responses.create({
      model: MODEL,
      previous_response_id: first.id,
      tools: [weatherTool],
      input: [{ type: 'function_call_output', call_id: call!.type === 'function_call' ? call!.call_id : '', output: '21°C and sunny' }],
    });
    expect(second.output_text).toBe(expectedText(target));
    expect(second.previous_response_id).toBe(first.id);
    if (target === 'anthropic') {
      // The whole conversation went to Anthropic: the question, the tool call, and its result.
      const sent = rig.anthropic.requests.at(-1)!.json as { messages: Array<{ role: string; content: Array<Record<string, unknown>> | string }> };
      expect(sent.messages.map((message) => message.role)).toEqual(['user', 'assistant', 'user']);
      expect(sent.messages[1].content).toEqual([expect.objectContaining({ type: 'tool_use', name: 'get_weather', input: { location: 'Paris' } })]);
      expect(sent.messages[2].content).toEqual([expect.objectContaining({ type: 'tool_result', content: '21°C and sunny' })]);
    } else {
      const sent = rig.openai.requests.at(-1)!.json as { input: Array<Record<string, unknown>>; previous_response_id?: string; store: boolean };
      expect(sent.previous_response_id).toBeUndefined();
      expect(sent.store).toBe(false);
      expect(sent.input.map((item) => item.type ?? 'message')).toEqual(['message', 'function_call', 'function_call_output']);
    }
  });

  it('streams a function call as function_call_arguments events', async () => {
    const final = await client(target).responses.stream({ model: MODEL, input: 'Weather?', tools: [weatherTool] }).finalResponse();
    expect(final.output.find((item) => item.type === 'function_call')).toMatchObject({ name: 'get_weather', arguments: '{"location":"Paris"}' });
  });

  it('falls back from a failing target to this one', async () => {
    const openai = new OpenAI({ baseURL: `${rig.gateway.url}/v1`, apiKey: 'unused', maxRetries: 0, defaultHeaders: { 'x-gw-api-key': rig.gateway.apiKey, 'x-gw-config': fallbackConfig(target === 'openai' ? 'anthropic' : 'openai', rig, target) } });
    const { data, response } = await openai.responses.create({ model: MODEL, input: 'Hi' }).withResponse();
    expect(data.output_text).toBe(expectedText(target));
    expect(response.headers.get('x-gw-provider')).toBe(target);
    expect(response.headers.get('x-gw-last-used-option-index')).toBe('config.targets[1]');
  });

  it('store: false keeps nothing', async () => {
    const openai = client(target);
    const response = await openai.responses.create({ model: MODEL, input: 'Hi', store: false });
    const error = await openai.responses.retrieve(response.id).catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(OpenAI.NotFoundError);
  });
});

describe('stored responses: delete, workspaces, errors', () => {
  it('DELETE removes a stored response', async () => {
    const openai = client('openai');
    const response = await openai.responses.create({ model: MODEL, input: 'Hi' });
    await openai.responses.delete(response.id);
    await expect(openai.responses.retrieve(response.id)).rejects.toBeInstanceOf(OpenAI.NotFoundError);
    await expect(openai.responses.delete(response.id)).rejects.toBeInstanceOf(OpenAI.NotFoundError);
  });

  it('a second workspace cannot read, list, continue or delete the first one’s response', async () => {
    const mine = await client('anthropic').responses.create({ model: MODEL, input: 'Hi' });
    const other = await createOrganisation();
    const key = await createKey({ ...other, scopes: ['completions:write'] });
    const theirs = client('anthropic', key.raw);
    await expect(theirs.responses.retrieve(mine.id)).rejects.toBeInstanceOf(OpenAI.NotFoundError);
    await expect(theirs.responses.inputItems.list(mine.id)).rejects.toBeInstanceOf(OpenAI.NotFoundError);
    await expect(theirs.responses.delete(mine.id)).rejects.toBeInstanceOf(OpenAI.NotFoundError);
    const continued = await theirs.responses.create({ model: MODEL, input: 'More', previous_response_id: mine.id }).catch((thrown: unknown) => thrown);
    expect(continued).toBeInstanceOf(OpenAI.BadRequestError);
    expect((continued as InstanceType<typeof OpenAI.BadRequestError>).code).toBe('previous_response_not_found');
    // Still there for its owner.
    expect((await client('anthropic').responses.retrieve(mine.id)).id).toBe(mine.id);
  });

  it('a conversation too large for a DynamoDB item is stored in the blob store and still continues', async () => {
    const openai = client('anthropic');
    // Random text barely compresses: ~600 KB of it stays above the 300 KB inline limit once gzipped.
    const large = randomBytes(450 * 1024).toString('base64');
    const first = await openai.responses.create({ model: MODEL, input: large });
    const stored = await openai.responses.retrieve(first.id);
    expect(stored.output_text).toBe(ANTHROPIC_MOCK_TEXT);
    const items = await openai.responses.inputItems.list(first.id);
    expect(items.data[0]).toMatchObject({ role: 'user', content: large });
    await openai.responses.create({ model: MODEL, previous_response_id: first.id, input: 'Summarise.' });
    const sent = rig.anthropic.requests.at(-1)!.json as { messages: Array<{ role: string; content: unknown }> };
    expect(sent.messages.map((message) => message.role)).toEqual(['user', 'assistant', 'user']);
    expect(sent.messages[0].content).toBe(large);
    await openai.responses.delete(first.id);
    await expect(openai.responses.retrieve(first.id)).rejects.toBeInstanceOf(OpenAI.NotFoundError);
  });

  it('an item_reference resolves only items of the caller’s own workspace', async () => {
    const mine = await client('openai').responses.create({ model: MODEL, input: 'Hi' });
    const itemId = mine.output[0].id!;
    const reference = { model: MODEL, input: [{ type: 'item_reference', id: itemId }, { role: 'user', content: 'And?' }] };
    const own = await rig.gateway.post('/v1/responses', reference, targetHeaders('anthropic', rig.anthropic));
    expect(own.status).toBe(200);
    const sent = rig.anthropic.requests.at(-1)!.json as { messages: Array<{ role: string; content: unknown }> };
    expect(sent.messages).toEqual([{ role: 'assistant', content: OPENAI_MOCK_TEXT }, { role: 'user', content: 'And?' }]);
    const other = await createOrganisation();
    const key = await createKey({ ...other, scopes: ['completions:write'] });
    const theirs = await rig.gateway.post('/v1/responses', reference, { ...targetHeaders('anthropic', rig.anthropic), 'x-gw-api-key': key.raw });
    expect(theirs.status).toBe(400);
    expect(await theirs.json()).toMatchObject({ error: { code: 'item_not_found' } });
  });

  it('Azure OpenAI gets the Responses body natively on its v1 route, the deployment as the model', async () => {
    const headers = { 'x-gw-provider': 'azure-openai', 'x-gw-azure-resource-name': 'res', 'x-gw-azure-deployment-id': 'gpt4-prod', 'x-gw-custom-host': rig.openai.url, authorization: 'Bearer azure-key' };
    const response = await rig.gateway.post('/v1/responses', { model: 'gpt-4.1', input: 'Hi', tools: [{ type: 'web_search_preview' }] }, headers);
    expect(response.status).toBe(200);
    const seen = rig.openai.requests.at(-1)!;
    expect(seen.path).toBe('/openai/v1/responses');
    expect(seen.headers['api-key']).toBe('azure-key');
    expect(seen.json).toMatchObject({ model: 'gpt4-prod', tools: [{ type: 'web_search_preview' }], store: false });
  });

  it('a weaker key of the same workspace (no completions:write) is refused with 403; no key is a 401', async () => {
    const tenant = await createOrganisation();
    const writer = await createKey({ ...tenant, scopes: ['completions:write'] });
    const reader = await createKey({ ...tenant, scopes: [] });
    const mine = await client('openai', writer.raw).responses.create({ model: MODEL, input: 'Hi' });
    for (const method of ['GET', 'DELETE']) {
      const weaker = await fetch(`${rig.gateway.url}/v1/responses/${mine.id}`, { method, headers: { 'x-gw-api-key': reader.raw } });
      expect(weaker.status).toBe(403);
      expect(await weaker.json()).toMatchObject({ error: { code: 'missing_scope', type: 'permission_error' }, status: 'failure' });
    }
    const anonymous = await fetch(`${rig.gateway.url}/v1/responses/${mine.id}/input_items`);
    expect(anonymous.status).toBe(401);
    expect((await client('openai', writer.raw).responses.retrieve(mine.id)).id).toBe(mine.id);
  });

  it('a built-in tool on a target that cannot run it is a 400 naming the tool', async () => {
    // File search reads OpenAI's vector stores: nothing on Anthropic's side can run it (web search can: see
    // web-search-translation.test.ts).
    const error = await client('anthropic').responses.create({ model: MODEL, input: 'News?', tools: [{ type: 'file_search', vector_store_ids: ['vs_1'] }] }).catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect((error as Error).message).toContain('file_search');
    // An OpenAI target runs it: the tool goes through as it is.
    await client('openai').responses.create({ model: MODEL, input: 'News?', tools: [{ type: 'web_search_preview' }] });
    expect((rig.openai.requests.at(-1)!.json as { tools: unknown[] }).tools).toEqual([{ type: 'web_search_preview' }]);
  });

  it('malformed bodies are 400s in OpenAI’s error shape', async () => {
    const missing = await rig.gateway.post('/v1/responses', { model: MODEL }, targetHeaders('openai', rig.openai));
    expect(missing.status).toBe(400);
    expect(await missing.json()).toMatchObject({ error: { code: 'missing_input', param: 'input', type: 'invalid_request_error' }, status: 'failure' });
    const unknown = await rig.gateway.post('/v1/responses', { model: MODEL, input: 'Hi', previous_response_id: 'resp_nope' }, targetHeaders('openai', rig.openai));
    expect(unknown.status).toBe(400);
    expect(await unknown.json()).toMatchObject({ error: { code: 'previous_response_not_found', param: 'previous_response_id' } });
  });

  it('an error after the stream started ends it with error and response.failed events', async () => {
    rig.anthropic.setHandler(() => ({
      chunks: [
        `event: message_start\ndata: ${JSON.stringify({ type: 'message_start', message: { id: 'msg_x', type: 'message', role: 'assistant', model: MODEL, content: [], usage: { input_tokens: 3, output_tokens: 1 } } })}\n\n`,
        `event: content_block_start\ndata: ${JSON.stringify({ type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } })}\n\n`,
        `event: content_block_delta\ndata: ${JSON.stringify({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Hel' } })}\n\n`,
        `event: error\ndata: ${JSON.stringify({ type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } })}\n\n`,
      ],
      chunkDelayMs: 5,
    }));
    try {
      const stream = await client('anthropic').responses.create({ model: MODEL, input: 'Hi', stream: true });
      const types: string[] = [];
      for await (const event of stream) types.push(event.type);
      expect(types.slice(-2)).toEqual(['error', 'response.failed']);
      expect(types).toContain('response.output_text.delta');
    } finally {
      const { anthropicMockHandler } = await import('../../support/mock-anthropic.js');
      rig.anthropic.setHandler(anthropicMockHandler());
    }
  });

  it('a native (OpenAI) stream that breaks mid-way: error, then response.failed with the started Response, sequence numbers continuing', async () => {
    const started = { id: 'resp_native_1', object: 'response', status: 'in_progress', model: MODEL, output: [] };
    const sse = (event: Record<string, unknown>) => `event: ${String(event.type)}\ndata: ${JSON.stringify(event)}\n\n`;
    rig.openai.setHandler(() => ({
      headers: { 'content-type': 'text/event-stream' },
      chunks: [
        sse({ type: 'response.created', sequence_number: 0, response: started }),
        sse({ type: 'response.in_progress', sequence_number: 1, response: started }),
        sse({ type: 'response.output_item.added', sequence_number: 2, output_index: 0, item: { type: 'message', id: 'msg_1', status: 'in_progress', role: 'assistant', content: [] } }),
        sse({ type: 'response.output_text.delta', sequence_number: 3, item_id: 'msg_1', output_index: 0, content_index: 0, delta: 'Hel' }),
      ],
      resetAfterChunks: true,
    }));
    try {
      const response = await fetch(`${rig.gateway.url}/v1/responses`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-gw-api-key': rig.gateway.apiKey, authorization: 'Bearer sk-openai', ...targetHeaders('openai', rig.openai) },
        body: JSON.stringify({ model: MODEL, input: 'Hi', stream: true }),
      });
      const decoder = new SseDecoder();
      const events = [...decoder.push(new Uint8Array(await response.arrayBuffer())), ...decoder.end()].map((event) => ({ name: event.event, data: JSON.parse(event.data) as Record<string, unknown> }));
      expect(events.map((event) => event.name).slice(-2)).toEqual(['error', 'response.failed']);
      expect(events.map((event) => event.data.sequence_number)).toEqual([0, 1, 2, 3, 4, 5]);
      expect(events.at(-1)!.data.response).toMatchObject({ id: 'resp_native_1', status: 'failed', error: { code: expect.any(String), message: expect.any(String) } });
    } finally {
      rig.openai.setHandler(openAIDialectsMockHandler());
    }
  });
});

import { describe, expect, it } from 'vitest';
import { MOCK_RATE_LIMIT_HEADERS } from '../../support/mock-anthropic.js';
import type { MockHandler } from '../../support/mock-upstream.js';
import { targetHeaders, useDialectRig, type DialectRig } from './dialect-setup.js';

/**
 * Class: an OpenAI built-in tool with an equivalent on the target is translated, not refused. OpenAI's web search
 * (Responses `web_search`, chat `web_search_options`) runs as Anthropic's server tool `web_search_20250305`, and
 * Anthropic's `web_search_result_location` citations come back as OpenAI's `url_citation` annotations, JSON and
 * streamed. The upstream answers are shaped as Anthropic's web search documentation shows them.
 */
let rig: DialectRig;
useDialectRig((started) => (rig = started));

type Json = Record<string, unknown>;
const INTRO = 'Searching. ';
const CITED = 'Paris hosted the 2024 Summer Olympics.';
const source = { url: 'https://example.org/paris-2024', title: 'Paris 2024' };
const citation = { type: 'web_search_result_location', ...source, encrypted_index: 'enc_1', cited_text: 'Paris hosted the Games' };
const usage = { input_tokens: 900, output_tokens: 40, server_tool_use: { web_search_requests: 1 } };
const content: Json[] = [
  { type: 'text', text: INTRO },
  { type: 'server_tool_use', id: 'srvtoolu_1', name: 'web_search', input: { query: 'olympics 2024 host city' } },
  { type: 'web_search_tool_result', tool_use_id: 'srvtoolu_1', content: [{ type: 'web_search_result', ...source, encrypted_content: 'enc_page', page_age: null }] },
  { type: 'text', text: CITED, citations: [citation] },
];

function streamed(): string[] {
  const events: Json[] = [{ type: 'message_start', message: { id: 'msg_ws', type: 'message', role: 'assistant', model: 'claude-mock', content: [], stop_reason: null, usage: { input_tokens: 900, output_tokens: 1 } } }];
  content.forEach((block, index) => {
    if (block.type === 'text') {
      events.push({ type: 'content_block_start', index, content_block: { type: 'text', text: '' } });
      if (block.citations) events.push({ type: 'content_block_delta', index, delta: { type: 'citations_delta', citation } });
      events.push({ type: 'content_block_delta', index, delta: { type: 'text_delta', text: block.text } });
    } else {
      events.push({ type: 'content_block_start', index, content_block: block });
    }
    events.push({ type: 'content_block_stop', index });
  });
  events.push({ type: 'message_delta', delta: { stop_reason: 'end_turn' }, usage: { output_tokens: 40 } }, { type: 'message_stop' });
  return events.map((event) => `event: ${String(event.type)}\ndata: ${JSON.stringify(event)}\n\n`);
}

const webSearchAnswer: MockHandler = (request) =>
  (request.json as Json).stream === true
    ? { headers: MOCK_RATE_LIMIT_HEADERS, chunks: streamed() }
    : { headers: MOCK_RATE_LIMIT_HEADERS, json: { id: 'msg_ws', type: 'message', role: 'assistant', model: 'claude-mock', content, stop_reason: 'end_turn', stop_sequence: null, usage } };

async function post(path: string, body: Json): Promise<Response> {
  rig.anthropic.setHandler(webSearchAnswer);
  return fetch(`${rig.gateway.url}${path}`, {
    method: 'POST',
    headers: { 'x-gw-api-key': rig.gateway.apiKey, authorization: 'Bearer sk-ant-provider', 'content-type': 'application/json', ...targetHeaders('anthropic', rig.anthropic) },
    body: JSON.stringify({ model: 'claude-sonnet-4-5', ...body }),
  });
}

const expectedAnnotation = { type: 'url_citation', ...source, start_index: INTRO.length, end_index: INTRO.length + CITED.length };
const sentTools = () => (rig.anthropic.requests.at(-1)!.json as Json).tools as Json[];
const sseEvents = (text: string) => text.split('\n').filter((line) => line.startsWith('data: ') && line !== 'data: [DONE]').map((line) => JSON.parse(line.slice(6)) as Json);

describe('OpenAI web search → Anthropic’s web search server tool', () => {
  const webSearchTool = { type: 'web_search', user_location: { type: 'approximate', city: 'Paris', country: 'FR' } };

  it('Responses: the web_search tool runs as web_search_20250305 and the citations are url_citation annotations', async () => {
    const response = await post('/v1/responses', { input: 'Where were the 2024 Olympics?', tools: [webSearchTool] });
    expect(response.status).toBe(200);
    expect(response.headers.get('x-gw-dropped-params')).toBeNull();
    expect(sentTools()).toEqual([{ type: 'web_search_20250305', name: 'web_search', user_location: { type: 'approximate', city: 'Paris', country: 'FR' } }]);
    const body = (await response.json()) as { output: Array<{ type: string; content?: Array<{ text: string; annotations: Json[] }> }> };
    const message = body.output.find((item) => item.type === 'message')!;
    expect(message.content![0].text).toBe(INTRO + CITED);
    expect(message.content![0].annotations).toEqual([expectedAnnotation]);
    const { start_index, end_index } = expectedAnnotation;
    expect(message.content![0].text.slice(start_index, end_index)).toBe(CITED);
  });

  it('Responses stream: response.output_text.annotation.added, and the completed response carries the annotation', async () => {
    const response = await post('/v1/responses', { input: 'Where were the 2024 Olympics?', tools: [webSearchTool], stream: true });
    expect(response.status).toBe(200);
    const events = sseEvents(await response.text());
    const added = events.filter((event) => event.type === 'response.output_text.annotation.added');
    expect(added).toHaveLength(1);
    expect(added[0]).toMatchObject({ annotation_index: 0, annotation: expectedAnnotation });
    const completed = events.find((event) => event.type === 'response.completed')!.response as { output: Array<{ type: string; content?: Array<{ annotations: Json[] }> }> };
    expect(completed.output.find((item) => item.type === 'message')!.content![0].annotations).toEqual([expectedAnnotation]);
  });

  it('chat completions: web_search_options runs the search and the message carries annotations, JSON and streamed', async () => {
    const request = { messages: [{ role: 'user', content: 'Where were the 2024 Olympics?' }], web_search_options: { user_location: { type: 'approximate', approximate: { city: 'Paris' } } } };
    const json = await post('/v1/chat/completions', request);
    expect(json.status).toBe(200);
    expect(sentTools()).toEqual([{ type: 'web_search_20250305', name: 'web_search', user_location: { type: 'approximate', city: 'Paris' } }]);
    const completion = (await json.json()) as { choices: Array<{ message: { content: string; annotations: Json[] } }>; usage: Json };
    // The search is billed per search: its count travels in the usage, and the cost includes its fee.
    expect(completion.usage.server_tool_use).toEqual({ web_search_requests: 1 });
    const chatAnnotation = { type: 'url_citation', url_citation: { ...source, start_index: INTRO.length, end_index: INTRO.length + CITED.length } };
    expect(completion.choices[0].message).toMatchObject({ content: INTRO + CITED, annotations: [chatAnnotation] });

    const stream = await post('/v1/chat/completions', { ...request, stream: true });
    const chunks = sseEvents(await stream.text()) as Array<{ choices: Array<{ delta: { content?: string; annotations?: Json[] } }> }>;
    expect(chunks.map((chunk) => chunk.choices[0]?.delta.content ?? '').join('')).toBe(INTRO + CITED);
    expect(chunks.flatMap((chunk) => chunk.choices[0]?.delta.annotations ?? [])).toEqual([chatAnnotation]);
  });

  it('a web_search tool with a domain filter is never widened into an unfiltered search: 400 unless dropping is allowed', async () => {
    const response = await post('/v1/responses', { input: 'Hi', tools: [{ type: 'web_search', filters: { allowed_domains: ['example.org'] } }] });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: Json }).error).toMatchObject({ code: 'unsupported_tool', param: 'tools.0.type' });
  });
});

/**
 * The same class on Gemini: web search alone becomes Grounding with Google Search, and the grounding supports come
 * back as url_citation annotations. Google cannot combine its search with function declarations, so beside
 * function tools web search stays unsupported (named, never silently dropped).
 */
describe('OpenAI web search → Gemini’s Grounding with Google Search', () => {
  const grounding = {
    webSearchQueries: ['olympics 2024 host city'],
    groundingChunks: [{ web: { uri: source.url, title: source.title } }],
    groundingSupports: [{ segment: { startIndex: Buffer.byteLength(INTRO), endIndex: Buffer.byteLength(INTRO + CITED), text: CITED }, groundingChunkIndices: [0] }],
  };
  const candidate = (text: string, finish: boolean, withGrounding: boolean): Json => ({
    content: { role: 'model', parts: [{ text }] },
    index: 0,
    ...(finish ? { finishReason: 'STOP' } : {}),
    ...(withGrounding ? { groundingMetadata: grounding } : {}),
  });
  const usageMetadata = { promptTokenCount: 20, candidatesTokenCount: 12, totalTokenCount: 32 };
  const gemini: MockHandler = (request) =>
    request.path.includes(':streamGenerateContent')
      ? {
          headers: { 'content-type': 'text/event-stream' },
          chunks: [
            `data: ${JSON.stringify({ candidates: [candidate(INTRO, false, false)], usageMetadata })}\r\n\r\n`,
            `data: ${JSON.stringify({ candidates: [candidate(CITED, true, true)], usageMetadata })}\r\n\r\n`,
          ],
        }
      : { json: { candidates: [candidate(INTRO + CITED, true, true)], usageMetadata, modelVersion: 'gemini-2.5-pro' } };

  async function postGemini(path: string, body: Json): Promise<Response> {
    rig.openai.setHandler(gemini);
    return fetch(`${rig.gateway.url}${path}`, {
      method: 'POST',
      headers: { 'x-gw-api-key': rig.gateway.apiKey, 'x-gw-provider': 'google', 'x-gw-custom-host': `${rig.openai.url}/v1beta`, authorization: 'Bearer AIza-test', 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gemini-2.5-pro', ...body }),
    });
  }
  const sentToGoogle = () => rig.openai.requests.at(-1)!.json as Json;

  it('Responses web_search alone: googleSearch is the only tool, and the citation spans the supported text', async () => {
    const response = await postGemini('/v1/responses', { input: 'Where were the 2024 Olympics?', tools: [{ type: 'web_search' }] });
    expect(response.status, await response.clone().text()).toBe(200);
    expect(sentToGoogle().tools).toEqual([{ googleSearch: {} }]);
    const body = (await response.json()) as { output: Array<{ type: string; content?: Array<{ annotations: Json[] }> }> };
    expect(body.output.find((item) => item.type === 'message')!.content![0].annotations).toEqual([expectedAnnotation]);
  });

  it('chat streamed: the annotations arrive before the finish, and the grounded search is in the usage', async () => {
    const response = await postGemini('/v1/chat/completions', { messages: [{ role: 'user', content: 'Where?' }], web_search_options: {}, stream: true, stream_options: { include_usage: true } });
    expect(response.status).toBe(200);
    const chunks = sseEvents(await response.text()) as Array<{ choices: Array<{ delta: { annotations?: Json[] }; finish_reason: string | null }>; usage?: Json }>;
    const annotated = chunks.findIndex((chunk) => chunk.choices[0]?.delta.annotations);
    const finished = chunks.findIndex((chunk) => chunk.choices[0]?.finish_reason);
    expect(annotated).toBeGreaterThan(-1);
    expect(annotated).toBeLessThan(finished);
    expect(chunks[annotated].choices[0].delta.annotations).toEqual([{ type: 'url_citation', url_citation: { ...source, start_index: INTRO.length, end_index: INTRO.length + CITED.length } }]);
    expect(chunks.at(-1)!.usage!.server_tool_use).toEqual({ web_search_requests: 1 });
  });

  it('beside function tools, web search stays unsupported on Gemini: 400 naming it, or dropped and named under the header', async () => {
    const tools = [{ type: 'web_search' }, { type: 'function', name: 'lookup', parameters: { type: 'object', properties: {} } }];
    const refused = await postGemini('/v1/responses', { input: 'Hi', tools });
    expect(refused.status).toBe(400);
    expect(((await refused.json()) as { error: Json }).error).toMatchObject({ code: 'unsupported_tool', param: 'tools.0.type' });
  });
});

import { beforeEach, describe, expect, it } from 'vitest';
import { SseDecoder } from '../../../shared/http/sse.js';
import { concatBytes, eventMessage, exceptionMessage, splitAt } from '../../fixtures/bedrock/event-stream.js';
import { verifySigV4 } from '../../fixtures/bedrock/sigv4-verifier.js';
import type { TestGateway } from '../../support/gateway.js';
import { useGatewayWithUpstream } from '../../support/harness.js';
import type { MockUpstream, RecordedRequest, ScriptedResponse } from '../../support/mock-upstream.js';

const SECRET = 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY';
const EVENT_STREAM = { 'content-type': 'application/vnd.amazon.eventstream' };

let gateway: TestGateway;
let upstream: MockUpstream;
let answer: (request: RecordedRequest) => ScriptedResponse | Promise<ScriptedResponse>;
useGatewayWithUpstream((request) => answer(request), (started) => ({ gateway, upstream } = started));
beforeEach(() => {
  upstream.requests.length = 0;
});

const headers = (extra: Record<string, string> = {}) => ({
  'x-gw-provider': 'bedrock',
  'x-gw-custom-host': upstream.url,
  'x-gw-aws-access-key-id': 'AKIDEXAMPLE',
  'x-gw-aws-secret-access-key': SECRET,
  'x-gw-aws-region': 'us-east-1',
  ...extra,
});
const signed = (request: RecordedRequest) => verifySigV4({ method: request.method, rawPath: request.path, query: request.query, headers: request.headers, body: request.body }, SECRET).valid;

async function readSse(response: Response): Promise<Array<{ event?: string; data: string }>> {
  const decoder = new SseDecoder();
  return [...decoder.push(new Uint8Array(await response.arrayBuffer())), ...decoder.end()];
}

/** A Cohere Command stream chunk: the model's JSON, base64 under `bytes`, in a `chunk` event. */
const cohereChunk = (payload: unknown) => eventMessage('chunk', { bytes: Buffer.from(JSON.stringify(payload)).toString('base64') });

describe('Titan embeddings of a list: one InvokeModel call per text', () => {
  const TITAN = 'amazon.titan-embed-text-v2:0';
  const texts = ['zero', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine'];
  // Each text's vector says which text it was; later texts answer sooner, so arrival order is the reverse.
  // Tests whose calls may be cancelled tag their texts (`cancel:three`): a cancelled call can still reach the mock
  // after its test ended, and must not match what a later test is waiting for.
  const inputOf = (request: RecordedRequest) => (request.json as { inputText: string }).inputText;
  const untagged = (text: string) => text.replace(/^[a-z]+:/, '');
  const titanAnswer = (request: RecordedRequest): ScriptedResponse => {
    const index = texts.indexOf(untagged(inputOf(request)));
    return { json: { embedding: [index, index / 10], inputTextTokenCount: index + 1 }, delayMs: (texts.length - index) * 5 };
  };

  it('sends each text as its own signed call and answers in input order with the token counts summed', async () => {
    answer = titanAnswer;
    const response = await gateway.post('/v1/embeddings', { model: TITAN, input: texts, dimensions: 256, encoding_format: 'float' }, headers());
    expect(response.status).toBe(200);
    expect(response.headers.get('x-gw-provider')).toBe('bedrock');
    expect(await response.json()).toEqual({
      object: 'list',
      data: texts.map((_text, index) => ({ object: 'embedding', index, embedding: [index, index / 10] })),
      model: TITAN,
      usage: { prompt_tokens: 55, total_tokens: 55 },
    });
    expect(upstream.requests).toHaveLength(texts.length);
    expect(upstream.requests.map((request) => request.json).sort((a, b) => texts.indexOf((a as { inputText: string }).inputText) - texts.indexOf((b as { inputText: string }).inputText))).toEqual(
      texts.map((inputText) => ({ inputText, dimensions: 256 })),
    );
    for (const request of upstream.requests) {
      expect(request.path).toBe('/model/amazon.titan-embed-text-v2%3A0/invoke');
      expect(signed(request)).toBe(true);
    }
  });

  it('fails the whole request with the mapped upstream error when one text fails', async () => {
    const providerBody = { message: 'Malformed input request: expected maxLength: 50000' };
    answer = (request) =>
      (request.json as { inputText: string }).inputText === 'three' ? { status: 400, json: providerBody, headers: { 'x-amzn-errortype': 'ValidationException:http://internal.amazon.com/' } } : titanAnswer(request);
    const response = await gateway.post('/v1/embeddings', { model: TITAN, input: texts }, headers());
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({
      error: { message: providerBody.message, type: 'upstream_error', code: 'ValidationException', param: null, provider_error: providerBody },
      status: 'failure',
    });
  });

  it('cancels the texts still in flight when one fails, instead of waiting for the slowest', async () => {
    // Every other text hangs: the answer can only come if the failure stops its siblings.
    const mine = texts.map((text) => `cancel:${text}`);
    answer = (request) => (inputOf(request) === 'cancel:three' ? { status: 400, json: { message: 'Malformed input request' } } : { hang: true });
    const response = await gateway.post('/v1/embeddings', { model: TITAN, input: mine }, headers());
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: { message: string } }).error.message).toBe('Malformed input request');
    // Eight texts went out at once (the fan-out's concurrency); the two after them never did.
    const hung = () => upstream.requests.filter((request) => inputOf(request).startsWith('cancel:') && inputOf(request) !== 'cancel:three');
    expect(hung().map(inputOf)).not.toContain('cancel:eight');
    expect(hung().map(inputOf)).not.toContain('cancel:nine');
    // Each hung text that reached the provider had its connection closed by gw.
    for (let waited = 0; hung().some((request) => !request.closedEarly) && waited < 5_000; waited += 20) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(hung().filter((request) => !request.closedEarly).map(inputOf)).toEqual([]);
  });

  it('retries the fan-out as one attempt when a text is throttled', async () => {
    let throttled = false;
    answer = (request) => {
      if (inputOf(request) === 'retry:one' && !throttled) {
        throttled = true;
        return { status: 429, json: { message: 'Too many requests' } };
      }
      return titanAnswer(request);
    };
    const config = JSON.stringify({ retry: { attempts: 1, on_status_codes: [429] } });
    const response = await gateway.post('/v1/embeddings', { model: TITAN, input: texts.slice(0, 3).map((text) => `retry:${text}`), encoding_format: 'float' }, headers({ 'x-gw-config': config }));
    expect(response.status).toBe(200);
    expect(response.headers.get('x-gw-retry-attempt-count')).toBe('1');
    expect(((await response.json()) as { data: Array<{ embedding: number[] }> }).data.map((entry) => entry.embedding[0])).toEqual([0, 1, 2]);
  });
});

describe('Chat through InvokeModel for models Converse does not chat with', () => {
  const COMMAND = 'cohere.command-text-v14';
  const JURASSIC = 'ai21.j2-ultra-v1';
  const conversation = [
    { role: 'system', content: 'Be brief.' },
    { role: 'user', content: 'Name a colour.' },
    { role: 'assistant', content: 'Blue.' },
    { role: 'user', content: [{ type: 'text', text: 'Another?' }] },
  ];
  const transcript = 'Be brief.\n\nUser: Name a colour.\n\nAssistant: Blue.\n\nUser: Another?\n\nAssistant:';

  it('Cohere Command: sends the prompt body to /invoke and reads usage from Bedrock’s token-count headers', async () => {
    answer = () => ({
      json: { id: 'gen-1', prompt: transcript, generations: [{ id: 'g-1', text: ' Green.', finish_reason: 'COMPLETE' }] },
      headers: { 'x-amzn-bedrock-input-token-count': '21', 'x-amzn-bedrock-output-token-count': '3', 'x-amzn-requestid': 'req-cohere' },
    });
    const response = await gateway.post('/v1/chat/completions', { model: COMMAND, messages: conversation, max_tokens: 50, temperature: 0.2, top_p: 0.9, top_k: 5, stop: '\n' }, headers());
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      id: expect.stringMatching(/^chatcmpl-/),
      object: 'chat.completion',
      created: expect.any(Number),
      model: COMMAND,
      choices: [{ index: 0, message: { role: 'assistant', content: ' Green.', refusal: null }, logprobs: null, finish_reason: 'stop' }],
      usage: { prompt_tokens: 21, completion_tokens: 3, total_tokens: 24 },
    });
    const seen = upstream.requests[0];
    expect(seen.path).toBe('/model/cohere.command-text-v14/invoke');
    expect(seen.headers.accept).toBe('application/json');
    expect(seen.json).toEqual({ prompt: transcript, max_tokens: 50, temperature: 0.2, p: 0.9, k: 5, stop_sequences: ['\n'] });
    expect(signed(seen)).toBe(true);
  });

  it('Cohere Command: streams through InvokeModelWithResponseStream, cut anywhere, with the usage chunk', async () => {
    const bytes = concatBytes([
      cohereChunk({ text: 'Re', is_finished: false }),
      cohereChunk({ text: 'd, ', is_finished: false }),
      cohereChunk({ text: 'ō.', is_finished: false }),
      cohereChunk({ is_finished: true, finish_reason: 'MAX_TOKENS', 'amazon-bedrock-invocationMetrics': { inputTokenCount: 4, outputTokenCount: 3, invocationLatency: 80, firstByteLatency: 20 } }),
    ]);
    answer = () => ({ headers: EVENT_STREAM, chunks: splitAt(bytes, [5, 70, 71, 150]), chunkDelayMs: 1 });
    const response = await gateway.post('/v1/chat/completions', { model: `us.${COMMAND}`, messages: [{ role: 'user', content: 'Colour?' }], stream: true, stream_options: { include_usage: true } }, headers());
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('text/event-stream');
    const events = await readSse(response);
    expect(events.at(-1)!.data).toBe('[DONE]');
    const chunks = events.slice(0, -1).map((event) => JSON.parse(event.data) as { choices: Array<{ delta: unknown; finish_reason: string | null }>; usage?: unknown });
    expect(chunks.map((chunk) => chunk.choices[0]?.delta)).toEqual([{ role: 'assistant', content: '' }, { content: 'Re' }, { content: 'd, ' }, { content: 'ō.' }, {}, undefined]);
    expect(chunks[4].choices[0].finish_reason).toBe('length');
    expect(chunks[5].usage).toEqual({ prompt_tokens: 4, completion_tokens: 3, total_tokens: 7 });
    const seen = upstream.requests[0];
    expect(seen.path).toBe('/model/us.cohere.command-text-v14/invoke-with-response-stream');
    expect(seen.headers.accept).toBe('application/vnd.amazon.eventstream');
    expect(seen.json).toEqual({ prompt: 'Colour?', stream: true });
  });

  it('Cohere Command: a throttling exception before any text is an HTTP 429', async () => {
    answer = () => ({ headers: EVENT_STREAM, chunks: [exceptionMessage('throttlingException', 'Slow down.')] });
    const response = await gateway.post('/v1/chat/completions', { model: COMMAND, messages: [{ role: 'user', content: 'Hi' }], stream: true }, headers());
    expect(response.status).toBe(429);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe('throttlingException');
  });

  it('Jurassic-2: sends its own body and reads the completion, tokens counted from the answer', async () => {
    const jurassicAnswer = {
      id: 1234,
      prompt: { text: transcript, tokens: [{}, {}, {}, {}, {}, {}] },
      completions: [{ data: { text: ' Red.', tokens: [{}, {}] }, finishReason: { reason: 'endoftext' } }],
    };
    answer = () => ({ json: jurassicAnswer });
    const response = await gateway.post('/v1/chat/completions', { model: JURASSIC, messages: conversation, max_tokens: 20, presence_penalty: 0.5, stop: ['##'] }, headers());
    expect(response.status).toBe(200);
    const body = (await response.json()) as Record<string, unknown>;
    expect(body).toMatchObject({
      object: 'chat.completion',
      model: JURASSIC,
      choices: [{ index: 0, message: { role: 'assistant', content: ' Red.', refusal: null }, logprobs: null, finish_reason: 'stop' }],
      usage: { prompt_tokens: 6, completion_tokens: 2, total_tokens: 8 },
    });
    expect(upstream.requests[0].path).toBe('/model/ai21.j2-ultra-v1/invoke');
    expect(upstream.requests[0].json).toEqual({ prompt: transcript, maxTokens: 20, stopSequences: ['##'], presencePenalty: { scale: 0.5 } });

    // Jurassic-2 cannot stream on Bedrock: a streaming request gets the same answer replayed as chunks.
    const streamed = await gateway.post('/v1/chat/completions', { model: JURASSIC, messages: conversation, stream: true, stream_options: { include_usage: true } }, headers());
    expect(streamed.status).toBe(200);
    const events = await readSse(streamed);
    expect(upstream.requests[1].path).toBe('/model/ai21.j2-ultra-v1/invoke');
    expect(upstream.requests[1].headers.accept).toBe('application/json');
    const chunks = events.slice(0, -1).map((event) => JSON.parse(event.data) as { choices: Array<{ delta: unknown; finish_reason: string | null }>; usage?: unknown });
    expect(chunks.map((chunk) => chunk.choices[0]?.delta)).toEqual([{ role: 'assistant', content: '' }, { content: ' Red.' }, {}, undefined]);
    expect(chunks[3].usage).toEqual({ prompt_tokens: 6, completion_tokens: 2, total_tokens: 8 });
    expect(events.at(-1)!.data).toBe('[DONE]');
  });

  it('refuses tools and images on these text models, naming the parameter', async () => {
    const tools = await gateway.post(
      '/v1/chat/completions',
      { model: COMMAND, messages: [{ role: 'user', content: 'Hi' }], tools: [{ type: 'function', function: { name: 'f', parameters: { type: 'object' } } }] },
      headers(),
    );
    expect(tools.status).toBe(400);
    expect(((await tools.json()) as { error: { code: string; param: string } }).error).toMatchObject({ code: 'unsupported_parameter', param: 'tools' });
    const image = await gateway.post('/v1/chat/completions', { model: JURASSIC, messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' } }] }] }, headers());
    expect(image.status).toBe(400);
    expect(((await image.json()) as { error: { code: string; param: string } }).error).toMatchObject({ code: 'unsupported_content', param: 'messages[0].content[0].type' });
    expect(upstream.requests).toHaveLength(0);
  });
});

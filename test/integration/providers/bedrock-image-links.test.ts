import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { SseDecoder } from '../../../shared/http/sse.js';
import { eventMessage } from '../../fixtures/bedrock/event-stream.js';
import { verifySigV4 } from '../../fixtures/bedrock/sigv4-verifier.js';
import type { TestGateway } from '../../support/gateway.js';
import { useGatewayWithUpstream } from '../../support/harness.js';
import type { MockUpstream, RecordedRequest, ScriptedResponse } from '../../support/mock-upstream.js';
import { JPEG, PNG, startImageServer, type ImageServer } from './bedrock-image-server.js';

const SECRET = 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY';
const MODEL = 'anthropic.claude-3-5-sonnet-20240620-v1:0';
const MAX_BYTES = 1000;
const CONVERSE_ANSWER = {
  output: { message: { role: 'assistant', content: [{ text: 'A cat.' }] } },
  stopReason: 'end_turn',
  usage: { inputTokens: 20, outputTokens: 3, totalTokens: 23 },
};

let gateway: TestGateway;
let upstream: MockUpstream;
let images: ImageServer;
let answer: (request: RecordedRequest) => ScriptedResponse = () => ({ json: CONVERSE_ANSWER });
useGatewayWithUpstream((request) => answer(request), (started) => ({ gateway, upstream } = started), {
  GW_IMAGE_FETCH_MAX_BYTES: String(MAX_BYTES),
  GW_IMAGE_FETCH_TIMEOUT_MS: '2000',
  GW_IMAGE_FETCH_CONCURRENCY: '2',
  GW_IMAGE_FETCH_MAX_REDIRECTS: '2',
});
beforeAll(async () => {
  images = await startImageServer(MAX_BYTES);
});
afterAll(async () => {
  await images.close();
});
beforeEach(() => {
  upstream.requests.length = 0;
  images.requests.length = 0;
  answer = () => ({ json: CONVERSE_ANSWER });
});

const headers = () => ({
  'x-gw-provider': 'bedrock',
  'x-gw-custom-host': upstream.url,
  'x-gw-aws-access-key-id': 'AKIDEXAMPLE',
  'x-gw-aws-secret-access-key': SECRET,
  'x-gw-aws-region': 'us-east-1',
});
const withImage = (url: string, extra: Record<string, unknown> = {}) => ({
  model: MODEL,
  messages: [{ role: 'user', content: [{ type: 'text', text: 'What is this?' }, { type: 'image_url', image_url: { url, detail: 'low' } }] }],
  ...extra,
});
const base64 = (bytes: Buffer) => bytes.toString('base64');

async function expectImageError(url: string, status: number, code: string, message: string | RegExp): Promise<void> {
  const response = await gateway.post('/v1/chat/completions', withImage(url), headers());
  expect(response.status).toBe(status);
  const body = (await response.json()) as { error: { message: string } };
  expect(body).toEqual({
    error: { message: expect.stringMatching(message), type: 'invalid_request_error', code, param: 'messages[0].content[1].image_url.url' },
    status: 'failure',
  });
  expect(upstream.requests).toHaveLength(0);
}

describe('Bedrock image links fetched by the gateway', () => {
  it('fetches a link and sends Converse the bytes (the exact body Bedrock receives, signed)', async () => {
    const response = await gateway.post('/v1/chat/completions', withImage(`${images.url}/cat.png`), headers());
    expect(response.status).toBe(200);
    expect(response.headers.get('x-gw-provider')).toBe('bedrock');
    expect(response.headers.get('content-type')).toContain('application/json');
    expect(await response.json()).toEqual({
      id: expect.stringMatching(/^chatcmpl-/),
      object: 'chat.completion',
      created: expect.any(Number),
      model: MODEL,
      choices: [{ index: 0, message: { role: 'assistant', content: 'A cat.', refusal: null }, logprobs: null, finish_reason: 'stop' }],
      usage: { prompt_tokens: 20, completion_tokens: 3, total_tokens: 23 },
    });
    expect(images.requests).toEqual(['/cat.png']);
    const seen = upstream.requests[0];
    expect(seen.json).toEqual({
      messages: [{ role: 'user', content: [{ text: 'What is this?' }, { image: { format: 'png', source: { bytes: base64(PNG) } } }] }],
    });
    expect(verifySigV4({ method: seen.method, rawPath: seen.path, query: seen.query, headers: seen.headers, body: seen.body }, SECRET).valid).toBe(true);
  });

  it('streams with a fetched image; the type comes from the bytes when the server says octet-stream', async () => {
    answer = () => ({
      headers: { 'content-type': 'application/vnd.amazon.eventstream' },
      chunks: [
        eventMessage('messageStart', { role: 'assistant' }),
        eventMessage('contentBlockDelta', { contentBlockIndex: 0, delta: { text: 'A photo.' } }),
        eventMessage('messageStop', { stopReason: 'end_turn' }),
        eventMessage('metadata', { usage: { inputTokens: 9, outputTokens: 2, totalTokens: 11 } }),
      ],
    });
    const response = await gateway.post('/v1/chat/completions', withImage(`${images.url}/photo`, { stream: true }), headers());
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('text/event-stream');
    const decoder = new SseDecoder();
    const events = [...decoder.push(new Uint8Array(await response.arrayBuffer())), ...decoder.end()];
    const chunks = events.filter((event) => event.data !== '[DONE]').map((event) => JSON.parse(event.data) as { choices: Array<{ delta: Record<string, unknown>; finish_reason: string | null }> });
    expect(chunks.map((chunk) => chunk.choices[0].delta)).toEqual([{ role: 'assistant', content: '' }, { content: 'A photo.' }, {}]);
    expect(chunks.at(-1)!.choices[0].finish_reason).toBe('stop');
    expect(events.at(-1)!.data).toBe('[DONE]');
    expect(upstream.requests[0].path).toBe('/model/anthropic.claude-3-5-sonnet-20240620-v1%3A0/converse-stream');
    expect(upstream.requests[0].json).toEqual({
      messages: [{ role: 'user', content: [{ text: 'What is this?' }, { image: { format: 'jpeg', source: { bytes: base64(JPEG) } } }] }],
    });
  });

  it('fetches image links inside tool results, and follows a redirect to an allowed address', async () => {
    const body = {
      model: MODEL,
      messages: [
        { role: 'user', content: 'Take a screenshot' },
        { role: 'assistant', content: null, tool_calls: [{ id: 'tool_1', type: 'function', function: { name: 'screenshot', arguments: '{}' } }] },
        { role: 'tool', tool_call_id: 'tool_1', content: [{ type: 'text', text: 'Here:' }, { type: 'image_url', image_url: { url: `${images.url}/redirect-ok` } }] },
      ],
      tools: [{ type: 'function', function: { name: 'screenshot', parameters: { type: 'object', properties: {} } } }],
    };
    const response = await gateway.post('/v1/chat/completions', body, headers());
    expect(response.status).toBe(200);
    expect(images.requests).toEqual(['/redirect-ok', '/cat.png']);
    const sent = upstream.requests[0].json as { messages: Array<{ content: unknown[] }> };
    expect(sent.messages[2].content).toEqual([
      { toolResult: { toolUseId: 'tool_1', content: [{ text: 'Here:' }, { image: { format: 'png', source: { bytes: base64(PNG) } } }] } },
    ]);
  });

  it('fetches a request’s links in parallel, never more at once than GW_IMAGE_FETCH_CONCURRENCY, in order', async () => {
    const parts = [0, 1, 2, 3, 4].map((index) => ({ type: 'image_url', image_url: { url: `${images.url}/slow-png/${index}` } }));
    const response = await gateway.post('/v1/chat/completions', { model: MODEL, messages: [{ role: 'user', content: parts }] }, headers());
    expect(response.status).toBe(200);
    expect([...images.requests].sort()).toEqual(['/slow-png/0', '/slow-png/1', '/slow-png/2', '/slow-png/3', '/slow-png/4']);
    expect(images.maxInFlight()).toBe(2);
    const sent = upstream.requests[0].json as { messages: Array<{ content: unknown[] }> };
    expect(sent.messages[0].content).toHaveLength(5);
  });

  it('fetches a link once per request: a retry reuses the bytes', async () => {
    let calls = 0;
    answer = () => (++calls === 1 ? { status: 429, json: { message: 'Too many requests' } } : { json: CONVERSE_ANSWER });
    const config = JSON.stringify({ retry: { attempts: 1, on_status_codes: [429] } });
    const response = await gateway.post('/v1/chat/completions', withImage(`${images.url}/cat.png`), { ...headers(), 'x-gw-config': config });
    expect(response.status).toBe(200);
    expect(response.headers.get('x-gw-retry-attempt-count')).toBe('1');
    expect(upstream.requests).toHaveLength(2);
    expect(upstream.requests[1].json).toEqual(upstream.requests[0].json);
    expect(images.requests).toEqual(['/cat.png']);
  });

  it('refuses private, metadata and non-http links before any connection', async () => {
    await expectImageError('http://10.0.0.7/cat.png', 400, 'image_url_not_allowed', /private-range addresses are refused/);
    await expectImageError('http://169.254.169.254/latest/meta-data/', 400, 'image_url_not_allowed', /always refused/);
    await expectImageError('http://metadata.google.internal/x.png', 400, 'image_url_not_allowed', /metadata hosts are always refused/);
    await expectImageError(`http://user:pw@127.0.0.1:${images.port}/cat.png`, 400, 'image_url_not_allowed', /carries credentials/);
    expect(images.requests).toHaveLength(0);
  });

  it('refuses a redirect to a forbidden address, and too many redirects', async () => {
    await expectImageError(`${images.url}/redirect-metadata`, 400, 'image_url_not_allowed', /redirects to 169\.254\.169\.254: metadata addresses are always refused/);
    await expectImageError(`${images.url}/redirect-private`, 400, 'image_url_not_allowed', /redirects to 10\.1\.2\.3: private-range/);
    await expectImageError(`${images.url}/redirect-loop`, 400, 'image_fetch_failed', /more than 2 redirects/);
    expect(images.requests.filter((path) => path === '/redirect-loop')).toHaveLength(3);
  });

  it('refuses an image over the size cap, by content-length and by the bytes streamed', async () => {
    await expectImageError(`${images.url}/big-announced.png`, 400, 'image_too_large', new RegExp(`larger than ${MAX_BYTES} bytes`));
    await expectImageError(`${images.url}/big-streamed.png`, 400, 'image_too_large', new RegExp(`larger than ${MAX_BYTES} bytes`));
  });

  it('refuses a type Bedrock cannot read, names a failed fetch, and gives up at the timeout', async () => {
    await expectImageError(`${images.url}/page.html`, 400, 'unsupported_image_type', /is 'text\/html'; png, jpeg, gif and webp/);
    await expectImageError(`${images.url}/image.tiff`, 400, 'unsupported_image_type', /is 'image\/tiff'/);
    await expectImageError(`${images.url}/missing.png`, 400, 'image_fetch_failed', /HTTP 404/);
    await expectImageError(`${images.url}/hang.png`, 400, 'image_fetch_failed', /no complete answer within 2000 ms/);
    await expectImageError('http://127.0.0.1:1/cat.png', 400, 'image_fetch_failed', /could not connect \(ECONNREFUSED\)/);
 
    // The request's own timeout, when shorter, bounds the fetch too.
    const response = await gateway.post('/v1/chat/completions', withImage(`${images.url}/hang.png`), { ...headers(), 'x-gw-request-timeout': '250' });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: { message: string } }).error.message).toContain('no complete answer within 250 ms');
  });

  it('names only the host in errors: never the path or a presigned query', async () => {
    const response = await gateway.post('/v1/chat/completions', withImage(`${images.url}/missing.png?X-Amz-Signature=topsecret`), headers());
    expect(response.status).toBe(400);
    const text = await response.text();
    expect(text).toContain('127.0.0.1');
    expect(text).not.toContain('topsecret');
    expect(text).not.toContain('missing.png');
  });

  it('fetches nothing for a request that lacks AWS credentials', async () => {
    const response = await gateway.post('/v1/chat/completions', withImage(`${images.url}/cat.png`), { 'x-gw-provider': 'bedrock', 'x-gw-aws-region': 'us-east-1' });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe('missing_aws_credentials');
    expect(images.requests).toHaveLength(0);
  });

  it('still refuses other link schemes with the translation’s own error', async () => {
    const response = await gateway.post('/v1/chat/completions', withImage('ftp://example.com/cat.png'), headers());
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe('unsupported_image_url');
  });
});

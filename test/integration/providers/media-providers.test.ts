import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { TestGateway } from '../../support/gateway.js';
import { useGatewayWithUpstream } from '../../support/harness.js';
import type { MockUpstream, RecordedRequest, ScriptedResponse } from '../../support/mock-upstream.js';

// Stability AI (images), ElevenLabs (speech) and Deepgram (transcription) through gw's HTTP server, in OpenAI's
// shapes, each against one mock provider (x-gw-custom-host). Fixtures follow each provider's API reference examples.
const fixture = (name: string) => JSON.parse(readFileSync(fileURLToPath(new URL(`../../fixtures/${name}`, import.meta.url)), 'utf8')) as unknown;
const AUDIO = new Uint8Array([0x49, 0x44, 0x33, 0x04, 0x00, 0x00, 0x01, 0x02, 0x03]);

let gateway: TestGateway;
let upstream: MockUpstream;

function answer(request: RecordedRequest): ScriptedResponse {
  if (request.path.startsWith('/v2beta/stable-image/generate/')) {
    const prompt = /name="prompt"\r\n\r\n([^\r]*)/.exec(request.body)?.[1];
    if (prompt === 'filtered') return { json: { ...(fixture('stability-ai/image.json') as object), finish_reason: 'CONTENT_FILTERED' } };
    return prompt?.trim() ? { json: fixture('stability-ai/image.json') } : { status: 400, json: fixture('stability-ai/error.json') };
  }
  if (request.path.startsWith('/v1/text-to-speech/')) {
    if (request.path.includes('-nope')) return { status: 404, json: fixture('elevenlabs/error.json') };
    return { headers: { 'content-type': 'audio/mpeg' }, chunks: [AUDIO.slice(0, 4), AUDIO.slice(4)] };
  }
  if (request.path === '/v1/listen') {
    if (request.headers.authorization !== 'Token dg-key') return { status: 401, json: fixture('deepgram/error.json') };
    return { json: fixture('deepgram/listen.json') };
  }
  return { status: 404, json: { message: 'no route' } };
}

useGatewayWithUpstream(answer, (started) => ({ gateway, upstream } = started));

const gwHeaders = (provider: string, key: string) => ({ 'x-gw-api-key': gateway.apiKey, 'x-gw-provider': provider, 'x-gw-custom-host': upstream.url, authorization: `Bearer ${key}` });
const postJson = (provider: string, key: string, path: string, body: unknown) =>
  fetch(`${gateway.url}${path}`, { method: 'POST', headers: { ...gwHeaders(provider, key), 'content-type': 'application/json' }, body: JSON.stringify(body) });
const errorOf = async (response: Response) => ((await response.json()) as { error: { code: string; message: string; param: string | null; provider_error?: unknown } }).error;

describe('Stability AI images', () => {
  it('OpenAI image request → Stability multipart form; its JSON image → data[].b64_json', async () => {
    const response = await postJson('stability', 'sk-stab', '/v1/images/generations', { model: 'sd3.5-large', prompt: 'a lighthouse at dawn', size: '1536x1024', negative_prompt: 'fog', seed: 7 });
    expect(response.status).toBe(200);
    expect(response.headers.get('x-gw-provider')).toBe('stability-ai');
    const body = (await response.json()) as { created: number; data: Array<{ b64_json: string }> };
    expect(body.data[0].b64_json).toBe((fixture('stability-ai/image.json') as { image: string }).image);
    expect(body.created).toBeGreaterThan(0);
    const sent = upstream.requests.at(-1)!;
    expect(sent.path).toBe('/v2beta/stable-image/generate/sd3');
    expect(sent.headers.authorization).toBe('Bearer sk-stab');
    expect(sent.headers.accept).toBe('application/json');
    const form = await new Response(sent.body, { headers: { 'content-type': String(sent.headers['content-type']) } }).formData();
    expect(Object.fromEntries(form.entries())).toEqual({ prompt: 'a lighthouse at dawn', model: 'sd3.5-large', aspect_ratio: '3:2', output_format: 'png', negative_prompt: 'fog', seed: '7' });
  });

  it('unsupported parameter: a size with no Stability aspect ratio, n > 1 or url answers are 400s before any call', async () => {
    const count = upstream.requests.length;
    expect((await errorOf(await postJson('stability-ai', 'sk', '/v1/images/generations', { prompt: 'p', size: '1000x333' }))).param).toBe('size');
    expect((await errorOf(await postJson('stability-ai', 'sk', '/v1/images/generations', { prompt: 'p', n: 2 }))).param).toBe('n');
    expect((await errorOf(await postJson('stability-ai', 'sk', '/v1/images/generations', { prompt: 'p', response_format: 'url' }))).param).toBe('response_format');
    expect(upstream.requests.length).toBe(count);
  });

  it('provider error shape: {name, errors[]} keeps the status; a filtered image is a content_policy_violation', async () => {
    const refused = await postJson('stability-ai', 'sk', '/v1/images/generations', { model: 'stable-image-core', prompt: ' ' });
    expect(refused.status).toBe(400);
    expect(await errorOf(refused)).toMatchObject({ code: 'bad_request', message: 'prompt: cannot be empty' });
    const filtered = await postJson('stability-ai', 'sk', '/v1/images/generations', { prompt: 'filtered' });
    expect(filtered.status).toBe(400);
    expect((await errorOf(filtered)).code).toBe('content_policy_violation');
  });
});

describe('ElevenLabs speech', () => {
  it('OpenAI speech request → /v1/text-to-speech/{voice}/stream with xi-api-key; the audio bytes come back as sent', async () => {
    const response = await postJson('elevenlabs', 'xi-key', '/v1/audio/speech', { model: 'eleven_flash_v2_5', input: 'Hello there', voice: '21m00Tcm4TlvDq8ikWAX', response_format: 'pcm', speed: 1.1 });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('audio/mpeg');
    expect(new Uint8Array(await response.arrayBuffer())).toEqual(AUDIO);
    const sent = upstream.requests.at(-1)!;
    expect(sent.path).toBe('/v1/text-to-speech/21m00Tcm4TlvDq8ikWAX/stream');
    expect(sent.query.get('output_format')).toBe('pcm_24000');
    expect(sent.headers['xi-api-key']).toBe('xi-key');
    expect(sent.headers.authorization).toBeUndefined();
    expect(sent.json).toEqual({ text: 'Hello there', model_id: 'eleven_flash_v2_5', voice_settings: { speed: 1.1 } });
  });

  it('provider error shape: {detail:{status,message}} keeps the status and code; a voice that is no id is a 400', async () => {
    const missing = await postJson('elevenlabs', 'xi-key', '/v1/audio/speech', { input: 'Hi', voice: '21m00Tcm4TlvDq8ikWAX-nope' });
    expect(missing.status).toBe(404);
    expect(await errorOf(missing)).toMatchObject({ code: 'voice_not_found' });
    const bad = await postJson('elevenlabs', 'xi-key', '/v1/audio/speech', { input: 'Hi', voice: '../../v1/user' });
    expect(bad.status).toBe(400);
    expect((await errorOf(bad)).param).toBe('voice');
  });
});

describe('Deepgram transcription', () => {
  const transcribe = (fields: Record<string, string>, key = 'dg-key') => {
    const form = new FormData();
    form.set('file', new Blob([AUDIO], { type: 'audio/mpeg' }), 'speech.mp3');
    for (const [name, value] of Object.entries(fields)) form.set(name, value);
    return fetch(`${gateway.url}/v1/audio/transcriptions`, { method: 'POST', headers: gwHeaders('deepgram', key), body: form });
  };

  it('OpenAI multipart form → the audio as the body of /v1/listen with Token auth; json answer is {text}', async () => {
    const response = await transcribe({ model: 'nova-3', language: 'en' });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ text: "Yeah. As much as it's worth celebrating the first spacewalk.", usage: { type: 'duration', seconds: 26 } });
    const sent = upstream.requests.at(-1)!;
    expect(sent.path).toBe('/v1/listen');
    expect(Object.fromEntries(sent.query)).toEqual({ model: 'nova-3', smart_format: 'true', language: 'en' });
    expect(sent.headers['content-type']).toBe('audio/mpeg');
    expect(sent.headers.authorization).toBe('Token dg-key');
    expect(Buffer.from(sent.body, 'latin1').length).toBe(AUDIO.length);
  });

  it('verbose_json has words and duration; text is plain text', async () => {
    const verbose = await transcribe({ response_format: 'verbose_json' });
    expect(await verbose.json()).toMatchObject({ task: 'transcribe', language: 'en', duration: 25.933313, words: [{ word: 'Yeah.', start: 0.08, end: 0.32 }, { word: 'As' }] });
    const text = await transcribe({ response_format: 'text' });
    expect(text.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(await text.text()).toBe("Yeah. As much as it's worth celebrating the first spacewalk.");
    expect(((await errorOf(await transcribe({ response_format: 'srt' }))) as { param: string | null }).param).toBe('response_format');
  });

  it('provider error shape: {err_code, err_msg} keeps the status', async () => {
    const response = await transcribe({}, 'wrong');
    expect(response.status).toBe(401);
    expect(await errorOf(response)).toMatchObject({ code: 'invalid_auth', message: 'Invalid credentials.' });
  });

  it('a chat call to a media-only provider is 400 unsupported_endpoint', async () => {
    const response = await postJson('deepgram', 'dg-key', '/v1/chat/completions', { model: 'nova-3', messages: [{ role: 'user', content: 'Hi' }] });
    expect(response.status).toBe(400);
    expect((await errorOf(response)).code).toBe('unsupported_endpoint');
  });
});

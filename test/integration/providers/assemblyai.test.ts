import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { beforeEach, describe, expect, it } from 'vitest';
import type { TestGateway } from '../../support/gateway.js';
import { useGatewayWithUpstream } from '../../support/harness.js';
import type { MockUpstream, RecordedRequest, ScriptedResponse } from '../../support/mock-upstream.js';

// AssemblyAI transcription through gw's HTTP server: OpenAI's multipart form becomes AssemblyAI's job (upload,
// create, poll), against one mock provider (x-gw-custom-host). Fixtures follow AssemblyAI's API reference examples.
const fixtureText = (name: string) => readFileSync(fileURLToPath(new URL(`../../fixtures/assemblyai/${name}`, import.meta.url)), 'utf8');
const fixture = (name: string) => JSON.parse(fixtureText(name)) as Record<string, unknown>;
const AUDIO = new Uint8Array([0x49, 0x44, 0x33, 0x04, 0x00, 0x00, 0x01, 0x02, 0x03]);
const TRANSCRIPT_ID = '9ea68fd3-f953-42c1-9742-976c447fb463';

let gateway: TestGateway;
let upstream: MockUpstream;
/** What the next polls of the transcript answer, in order; the last one repeats. */
let polls: string[] = [];

function answer(request: RecordedRequest): ScriptedResponse {
  if (request.headers.authorization !== 'aai-key') return { status: 401, json: fixture('error.json') };
  if (request.method === 'POST' && request.path === '/v2/upload') return { json: fixture('upload.json') };
  if (request.method === 'POST' && request.path === '/v2/transcript') return { json: fixture('transcript-queued.json') };
  if (request.method === 'GET' && request.path === `/v2/transcript/${TRANSCRIPT_ID}/srt`) return { headers: { 'content-type': 'text/plain' }, chunks: [fixtureText('transcript.srt')] };
  if (request.method === 'GET' && request.path === `/v2/transcript/${TRANSCRIPT_ID}`) {
    const status = polls.length > 1 ? polls.shift()! : polls[0];
    if (status === 'completed') return { json: fixture('transcript-completed.json') };
    if (status === 'error') return { json: fixture('transcript-error.json') };
    return { json: { ...fixture('transcript-queued.json'), status } };
  }
  return { status: 404, json: { error: 'Not found' } };
}

useGatewayWithUpstream(answer, (started) => ({ gateway, upstream } = started));
beforeEach(() => {
  upstream.requests.length = 0;
  polls = ['processing', 'completed'];
});

function transcribe(fields: Record<string, string>, headers: Record<string, string> = {}, key = 'aai-key') {
  const form = new FormData();
  form.set('file', new Blob([AUDIO], { type: 'audio/mpeg' }), 'speech.mp3');
  for (const [name, value] of Object.entries(fields)) form.set(name, value);
  return fetch(`${gateway.url}/v1/audio/transcriptions`, {
    method: 'POST',
    headers: { 'x-gw-api-key': gateway.apiKey, 'x-gw-provider': 'assemblyai', 'x-gw-custom-host': upstream.url, authorization: `Bearer ${key}`, ...headers },
    body: form,
  });
}
const errorOf = async (response: Response) => ((await response.json()) as { error: { code: string; message: string; param: string | null; type: string } }).error;
const paths = () => upstream.requests.map((request) => `${request.method} ${request.path}`);

describe('AssemblyAI transcription', () => {
  it('OpenAI form → upload, create, poll until completed; the key goes as a bare authorization header; json is {text, usage}', async () => {
    const response = await transcribe({ model: 'universal-2', language: 'en' });
    expect(response.status).toBe(200);
    expect(response.headers.get('x-gw-provider')).toBe('assemblyai');
    expect(await response.json()).toEqual({ text: fixture('transcript-completed.json').text, usage: { type: 'duration', seconds: 281 } });
    expect(paths()).toEqual(['POST /v2/upload', 'POST /v2/transcript', `GET /v2/transcript/${TRANSCRIPT_ID}`, `GET /v2/transcript/${TRANSCRIPT_ID}`]);
    const [upload, create, poll] = upstream.requests;
    expect(upload.headers['content-type']).toBe('application/octet-stream');
    expect(Buffer.from(upload.body, 'latin1')).toEqual(Buffer.from(AUDIO));
    expect(create.json).toEqual({ audio_url: fixture('upload.json').upload_url, speech_models: ['universal-2'], language_code: 'en' });
    for (const request of [upload, create, poll]) expect(request.headers.authorization).toBe('aai-key');
  });

  it('verbose_json has words in seconds and the duration; text is plain text; srt is the subtitle file read after completion', async () => {
    const verbose = await transcribe({ response_format: 'verbose_json' });
    expect(await verbose.json()).toEqual({
      task: 'transcribe',
      language: 'en_us',
      duration: 281,
      text: fixture('transcript-completed.json').text,
      words: [
        { word: 'Smoke', start: 0.25, end: 0.65 },
        { word: 'from', start: 0.73, end: 1.022 },
      ],
      usage: { type: 'duration', seconds: 281 },
    });
    // No language: AssemblyAI detects it; no model: universal-2, which covers every language.
    expect(upstream.requests[1].json).toMatchObject({ language_detection: true, speech_models: ['universal-2'] });
    polls = ['completed'];
    const text = await transcribe({ response_format: 'text' });
    expect(text.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(await text.text()).toBe(fixture('transcript-completed.json').text);
    polls = ['completed'];
    upstream.requests.length = 0;
    const srt = await transcribe({ response_format: 'srt' });
    expect(srt.status).toBe(200);
    expect(await srt.text()).toBe(fixtureText('transcript.srt'));
    expect(paths().at(-1)).toBe(`GET /v2/transcript/${TRANSCRIPT_ID}/srt`);
  });

  it('prompt as word boost: a list of terms is boosted, prose goes to universal-3-pro only, else 400 before any upload', async () => {
    polls = ['completed'];
    expect((await transcribe({ prompt: 'Kubernetes, load balancer' })).status).toBe(200);
    expect(upstream.requests[1].json).toMatchObject({ word_boost: ['Kubernetes', 'load balancer'] });
    polls = ['completed'];
    upstream.requests.length = 0;
    expect((await transcribe({ model: 'universal-3-pro', prompt: 'A cardiology consult between two doctors discussing a patient.' })).status).toBe(200);
    expect(upstream.requests[1].json).toMatchObject({ prompt: 'A cardiology consult between two doctors discussing a patient.', speech_models: ['universal-3-pro'] });
    upstream.requests.length = 0;
    const prose = await transcribe({ prompt: 'A cardiology consult between two doctors discussing a patient.' });
    expect(prose.status).toBe(400);
    expect(await errorOf(prose)).toMatchObject({ code: 'unsupported_parameter', param: 'prompt' });
    expect((await errorOf(await transcribe({ temperature: '0.2' }))).param).toBe('temperature');
    expect((await errorOf(await transcribe({ response_format: 'xml' }))).param).toBe('response_format');
    expect(upstream.requests).toHaveLength(0);
  });

  it('failed transcript: status "error" is a 502 carrying AssemblyAI\'s reason, and no further poll is made', async () => {
    polls = ['processing', 'error'];
    const response = await transcribe({});
    expect(response.status).toBe(502);
    expect(await errorOf(response)).toMatchObject({ code: 'transcription_failed', type: 'upstream_error', message: expect.stringContaining('File does not appear to contain audio') });
    expect(paths().filter((path) => path.startsWith('GET'))).toHaveLength(2);
  });

  it('job timeout: a transcript still processing at the request timeout is a 504 naming it, and polling stops', async () => {
    polls = ['processing'];
    const response = await transcribe({}, { 'x-gw-request-timeout': '1200' });
    expect(response.status).toBe(504);
    expect(await errorOf(response)).toMatchObject({ code: 'upstream_job_pending', message: expect.stringContaining(TRANSCRIPT_ID) });
    const made = upstream.requests.length;
    // Polls are spaced (250 ms, then doubling): a 1.2 s budget leaves room for a few, not a busy loop.
    expect(made).toBeLessThanOrEqual(6);
    await new Promise((resolve) => setTimeout(resolve, 600));
    expect(upstream.requests.length).toBe(made);
  });

  it("provider error shape: {error} keeps the status, code named by it, the key never echoed", async () => {
    const response = await transcribe({}, {}, 'wrong-key');
    expect(response.status).toBe(401);
    const error = await errorOf(response);
    expect(error).toMatchObject({ code: 'invalid_api_key', message: 'Authentication error, API token missing/invalid' });
    expect(JSON.stringify(error)).not.toContain('wrong-key');
  });

  it('a chat call to AssemblyAI is 400 unsupported_endpoint; the alias assembly-ai names the same provider', async () => {
    const chat = await fetch(`${gateway.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'x-gw-api-key': gateway.apiKey, 'x-gw-provider': 'assembly-ai', 'x-gw-custom-host': upstream.url, authorization: 'Bearer aai-key', 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'universal-2', messages: [{ role: 'user', content: 'Hi' }] }),
    });
    expect(chat.status).toBe(400);
    expect((await errorOf(chat)).code).toBe('unsupported_endpoint');
  });
});

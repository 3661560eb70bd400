import { toFile } from 'openai';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';
import { createKey, createOrganisation, rateLimitPayload } from '../control-plane/policies-support.js';
import { api } from '../control-plane/identities-support.js';
import { logOfTrace, logsWhere } from '../observability/observability-support.js';
import { startMediaMock, type MediaMock } from './media-mock.js';
import { BINARY_FILE, multipartBody, readForm, sdkClient } from './passthrough-support.js';

const MAX_BODY_BYTES = 64 * 1024;
let gateway: TestGateway;
let media: MediaMock;
let failing: MediaMock;

beforeAll(async () => {
  media = await startMediaMock();
  failing = await startMediaMock({ failing: true });
  gateway = await startTestGateway({ GW_MAX_BODY_BYTES: String(MAX_BODY_BYTES) });
});
afterAll(async () => {
  await gateway?.close();
  await Promise.all([media?.close(), failing?.close()]);
});

const viaMedia = (provider = 'openai') => ({ 'x-gw-provider': provider, 'x-gw-custom-host': media.url, authorization: 'Bearer sk-provider-token' });

function transcriptionForm(model = 'whisper-1') {
  return multipartBody({ model }, { field: 'file', filename: 'a.wav', type: 'audio/wav', bytes: BINARY_FILE });
}

async function postForm(path: string, form: { body: Buffer; contentType: string }, headers: Record<string, string>, apiKey = gateway.apiKey): Promise<Response> {
  return fetch(`${gateway.url}${path}`, { method: 'POST', headers: { 'content-type': form.contentType, 'x-gw-api-key': apiKey, ...headers }, body: form.body });
}

describe('pass-through endpoints: refusals', () => {
  it('a provider without the endpoint is a 400 unsupported_endpoint naming the provider and the endpoint; nothing is sent', async () => {
    const before = media.requests.length;
    const images = await gateway.post('/v1/images/generations', { model: 'm', prompt: 'fox' }, viaMedia('anthropic'));
    expect(images.status).toBe(400);
    const body = (await images.json()) as { error: { code: string; message: string }; status: string };
    expect(body).toMatchObject({ status: 'failure', error: { code: 'unsupported_endpoint', type: 'invalid_request_error' } });
    expect(body.error.message).toContain("'anthropic'");
    expect(body.error.message).toContain('images/generations');
    // OpenAI has no rerank; Azure OpenAI has no moderations.
    const rerank = await gateway.post('/v1/rerank', { model: 'm', query: 'q', documents: ['a'] }, viaMedia('openai'));
    expect(((await rerank.json()) as { error: { code: string } }).error.code).toBe('unsupported_endpoint');
    const moderation = await gateway.post('/v1/moderations', { input: 'x' }, { ...viaMedia('azure-openai'), 'x-gw-azure-deployment-id': 'd' });
    expect(moderation.status).toBe(400);
    expect(((await moderation.json()) as { error: { message: string } }).error.message).toContain("'azure-openai'");
    expect(media.requests.length).toBe(before);
  });

  it('bad bodies are 400s in the one error shape, naming the field', async () => {
    const noPrompt = await gateway.post('/v1/images/generations', { model: 'gpt-image-1' }, viaMedia());
    expect(noPrompt.status).toBe(400);
    expect(await noPrompt.json()).toMatchObject({ status: 'failure', error: { code: 'invalid_body', param: 'prompt' } });
    const noDocuments = await gateway.post('/v1/rerank', { model: 'm', query: 'q', documents: [] }, viaMedia('together-ai'));
    expect(await noDocuments.json()).toMatchObject({ error: { code: 'invalid_body', param: 'documents' } });
    const notJson = await gateway.post('/v1/moderations', '{"input":', viaMedia());
    expect(await notJson.json()).toMatchObject({ error: { code: 'invalid_json' } });
    const jsonToMultipartRoute = await gateway.post('/v1/audio/transcriptions', { model: 'whisper-1' }, viaMedia());
    expect(jsonToMultipartRoute.status).toBe(400);
    expect(await jsonToMultipartRoute.json()).toMatchObject({ error: { code: 'invalid_content_type' } });
    const noFile = await postForm('/v1/audio/transcriptions', multipartBody({ model: 'whisper-1' }, { field: 'other', filename: 'a.wav', type: 'audio/wav', bytes: BINARY_FILE }), viaMedia());
    expect(await noFile.json()).toMatchObject({ error: { code: 'missing_file', param: 'file' } });
    const broken = await fetch(`${gateway.url}/v1/audio/translations`, {
      method: 'POST',
      headers: { 'content-type': 'multipart/form-data; boundary=xyz', 'x-gw-api-key': gateway.apiKey, ...viaMedia() },
      body: 'not a multipart body at all',
    });
    expect(broken.status).toBe(400);
    expect(await broken.json()).toMatchObject({ error: { code: 'invalid_multipart' } });
  });

  it('a body over GW_MAX_BODY_BYTES is a 413, JSON and multipart alike', async () => {
    const big = multipartBody({ model: 'whisper-1' }, { field: 'file', filename: 'big.wav', type: 'audio/wav', bytes: Buffer.alloc(MAX_BODY_BYTES + 1, 7) });
    const multipart = await postForm('/v1/audio/transcriptions', big, viaMedia());
    expect(multipart.status).toBe(413);
    expect(await multipart.json()).toMatchObject({ status: 'failure', error: { code: 'body_too_large' } });
    const json = await gateway.post('/v1/images/generations', { model: 'm', prompt: 'x'.repeat(MAX_BODY_BYTES) }, viaMedia());
    expect(json.status).toBe(413);
  });

  it('a key of the same workspace without completions:write is a 403; no key is a 401; the openai SDK sees both', async () => {
    // The admin key's own workspace: a key there with only logs:read.
    const { organisationId, workspaceId } = gateway.bootstrap;
    const reader = await createKey({ organisationId, workspaceId, scopes: ['logs:read'] });
    const weaker = await postForm('/v1/audio/transcriptions', transcriptionForm(), viaMedia(), reader.raw);
    expect(weaker.status).toBe(403);
    expect(await weaker.json()).toMatchObject({ status: 'failure', error: { code: 'missing_scope', type: 'permission_error' } });
    const sdk = sdkClient(gateway, media.url, {}, reader.raw);
    await expect(sdk.images.generate({ model: 'gpt-image-1', prompt: 'fox' })).rejects.toBeInstanceOf(OpenAI.PermissionDeniedError);
    const anonymous = await fetch(`${gateway.url}/v1/moderations`, { method: 'POST', headers: { 'content-type': 'application/json', ...viaMedia() }, body: '{"input":"x"}' });
    expect(anonymous.status).toBe(401);
  });
});

describe('pass-through endpoints: routing and logs', () => {
  it('falls back from a failing first target; the replayed multipart reaches both targets byte for byte', async () => {
    const config = JSON.stringify({
      strategy: { mode: 'fallback' },
      targets: [
        { provider: 'openai', api_key: 'sk-first', custom_host: failing.url },
        { provider: 'groq', api_key: 'sk-second', custom_host: media.url },
      ],
    });
    const form = transcriptionForm();
    const response = await postForm('/v1/audio/transcriptions', form, { 'x-gw-config': config });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ text: 'hello world' });
    expect(response.headers.get('x-gw-provider')).toBe('groq');
    expect(response.headers.get('x-gw-last-used-option-index')).toBe('config.targets[1]');
    const first = failing.requests.at(-1)!;
    const second = media.requests.at(-1)!;
    expect(first.body.equals(form.body)).toBe(true);
    expect(second.body.equals(form.body)).toBe(true);
    expect(first.headers.authorization).toBe('Bearer sk-first');
    expect(second.headers.authorization).toBe('Bearer sk-second');
  });

  it('a target’s override_params rewrite the form field; the files stay byte for byte', async () => {
    const config = JSON.stringify({ provider: 'groq', api_key: 'sk-groq', custom_host: media.url, override_params: { model: 'whisper-large-v3' } });
    const response = await sdkClient(gateway, media.url, { 'x-gw-config': config }).audio.transcriptions.create({ model: 'whisper-1', file: await toFile(BINARY_FILE, 'a.wav') });
    expect(response.text).toBe('hello world');
    const seen = media.requests.at(-1)!;
    const form = await readForm(seen.body, String(seen.headers['content-type']));
    expect(form.get('model')).toBe('whisper-large-v3');
    expect(Buffer.from(await (form.get('file') as File).arrayBuffer()).equals(BINARY_FILE)).toBe(true);
  });

  it('with every target failing, the provider’s error comes back and x-should-retry is false', async () => {
    const config = JSON.stringify({ strategy: { mode: 'fallback' }, targets: [{ provider: 'openai', custom_host: failing.url }, { provider: 'openai', custom_host: failing.url }] });
    const response = await gateway.post('/v1/moderations', { input: 'x' }, { 'x-gw-config': config });
    expect(response.status).toBe(500);
    expect(response.headers.get('x-should-retry')).toBe('false');
    expect(await response.json()).toMatchObject({ status: 'failure', error: { message: 'mock is down' } });
  });

  it('each try is recorded as a chat try is: a retry and a fallback in x-gw-attempts, the record’s attempts and one attempt span each', async () => {
    const traceId = `passthrough-tries-${Date.now()}`;
    const config = JSON.stringify({
      strategy: { mode: 'fallback' },
      targets: [
        { provider: 'openai', api_key: 'sk-first', custom_host: failing.url, retry: { attempts: 1 } },
        { provider: 'mistral-ai', api_key: 'sk-second', custom_host: media.url, override_params: { model: 'omni-moderation-latest' } },
      ],
    });
    const response = await gateway.post('/v1/moderations', { model: 'text-moderation', input: 'x' }, { 'x-gw-config': config, 'x-gw-trace-id': traceId });
    expect(response.status).toBe(200);
    expect(response.headers.get('x-gw-retry-attempt-count')).toBe('1');
    expect(response.headers.get('x-gw-cache-status')).toBe('DISABLED');
    expect(response.headers.get('x-gw-attempts')).toMatch(/^config\.targets\[0\]=500\/\S+, config\.targets\[0\]=500\/\S+, config\.targets\[1\]=200$/);
    const record = await logOfTrace(gateway, traceId);
    expect(record).toMatchObject({ endpoint: 'moderations', provider: 'mistral-ai', model: 'omni-moderation-latest', status: 200, retry_count: 1, last_used_option: 'config.targets[1]' });
    const full = await api<{ attempts: Array<Record<string, unknown>> }>(gateway, 'GET', `/v1/logs/${record.id}`);
    expect(full.body.attempts).toEqual([
      expect.objectContaining({ target_path: 'config.targets[0]', provider: 'openai', model: 'text-moderation', status: 500, retry: 0, cache_status: 'DISABLED', error_code: expect.any(String) }),
      expect.objectContaining({ target_path: 'config.targets[0]', provider: 'openai', status: 500, retry: 1 }),
      expect.objectContaining({ target_path: 'config.targets[1]', provider: 'mistral-ai', model: 'omni-moderation-latest', status: 200, retry: 0, cache_status: 'DISABLED' }),
    ]);
    expect(full.body.attempts[2]).not.toHaveProperty('error_code');
    // The JSON answer is stored as the provider sent it (the value the attempt parsed for its usage).
    expect(record.response_body).toEqual({ id: 'modr-1', model: 'omni-moderation-latest', results: [{ flagged: false, categories: {}, category_scores: {} }] });
    for (const attempt of full.body.attempts) expect(attempt.latency_ms).toEqual(expect.any(Number));
    const spans = record.spans.filter((span) => span.kind === 'attempt');
    expect(spans.map((span) => span.status)).toEqual(['error', 'error', 'ok']);
    expect(spans[0]).toMatchObject({ attributes: { 'gw.retry': 0, 'gw.target_path': 'config.targets[0]', 'gen_ai.provider.name': 'openai', 'http.response.status_code': 500, 'gw.cache_status': 'DISABLED' } });
    expect(spans[1]).toMatchObject({ attributes: { 'gw.retry': 1, 'http.response.status_code': 500 } });
    expect(spans[2]).toMatchObject({ attributes: { 'gw.retry': 0, 'gw.target_path': 'config.targets[1]', 'gen_ai.provider.name': 'mistral-ai', 'gen_ai.request.model': 'omni-moderation-latest', 'http.response.status_code': 200 } });
  });

  it('writes one log record per request: endpoint, provider, model, status, latency; media bodies are not logged', async () => {
    const traceId = `passthrough-log-${Date.now()}`;
    const ok = await postForm('/v1/audio/transcriptions', transcriptionForm('whisper-1'), { ...viaMedia(), 'x-gw-trace-id': traceId });
    expect(ok.status).toBe(200);
    const record = await logOfTrace(gateway, traceId);
    expect(record).toMatchObject({ endpoint: 'audio/transcriptions', provider: 'openai', model: 'whisper-1', status: 200 });
    expect(typeof record.latency_ms).toBe('number');
    // The full record keeps the form's text fields and a summary of the file, never the file's bytes.
    const full = await api<{ request_body: unknown }>(gateway, 'GET', `/v1/logs/${record.id}`);
    expect(full.status).toBe(200);
    expect(full.body.request_body).toEqual({ model: 'whisper-1', file: { filename: 'a.wav', bytes: BINARY_FILE.length, type: 'audio/wav' } });

    const speechTrace = `passthrough-speech-${Date.now()}`;
    const speech = await gateway.post('/v1/audio/speech', { model: 'tts-1', voice: 'alloy', input: 'hi' }, { ...viaMedia(), 'x-gw-trace-id': speechTrace });
    expect(Buffer.from(await speech.arrayBuffer()).length).toBeGreaterThan(0);
    expect(await logOfTrace(gateway, speechTrace)).toMatchObject({ endpoint: 'audio/speech', provider: 'openai', model: 'tts-1', status: 200 });

    const refusedTrace = `passthrough-refused-${Date.now()}`;
    await gateway.post('/v1/images/generations', { model: 'm', prompt: 'fox' }, { ...viaMedia('anthropic'), 'x-gw-trace-id': refusedTrace });
    expect(await logOfTrace(gateway, refusedTrace)).toMatchObject({ endpoint: 'images/generations', provider: 'anthropic', status: 400 });
  });

  it('rate-limit policies apply: 200 concurrent calls against a limit of 50 give exactly 50 answers and 150 429s', async () => {
    const model = `limited-moderation-${Date.now()}`;
    const policy = await api(gateway, 'POST', '/v1/policies/rate-limits', { body: rateLimitPayload({ conditions: [{ key: 'model', value: model }], unit: 'rpd', value: 50, name: 'passthrough limit' }) });
    expect(policy.status, JSON.stringify(policy.body)).toBe(201);
    const before = media.requests.length;
    const statuses = await Promise.all(
      Array.from({ length: 200 }, () => gateway.post('/v1/moderations', { model, input: 'x' }, viaMedia()).then(async (response) => (await response.arrayBuffer(), response.status))),
    );
    // Per day, not per minute: a burst that straddles a minute boundary would see two windows.
    const tally = JSON.stringify(statuses.reduce<Record<number, number>>((counts, status) => ({ ...counts, [status]: (counts[status] ?? 0) + 1 }), {}));
    expect(statuses.filter((status) => status === 200), tally).toHaveLength(50);
    expect(statuses.filter((status) => status === 429), tally).toHaveLength(150);
    expect(media.requests.length - before).toBe(50);
    // A generous bound for a shared CI machine: this is no speed assertion, only room for 200 requests to finish.
  }, 120_000);

  it('a client that leaves mid-audio ends the relay; the record says client_closed', async () => {
    let release!: () => void;
    media.holdSpeech(new Promise<void>((resolve) => (release = resolve)));
    const traceId = `passthrough-left-${Date.now()}`;
    const controller = new AbortController();
    const response = await fetch(`${gateway.url}/v1/audio/speech`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-gw-api-key': gateway.apiKey, 'x-gw-trace-id': traceId, ...viaMedia() },
      body: JSON.stringify({ model: 'tts-1', voice: 'alloy', input: 'a long story' }),
      signal: controller.signal,
    });
    const reader = response.body!.getReader();
    expect((await reader.read()).done).toBe(false);
    // The provider still holds the rest: gw must drop it on its own when the client leaves, not wait for it.
    const closed = media.nextClose();
    controller.abort();
    await closed;
    const record = await logOfTrace(gateway, traceId);
    expect(record).toMatchObject({ endpoint: 'audio/speech', status: 200, error: { code: 'client_closed' } });
    release();
    media.holdSpeech(Promise.resolve());
  });

  it('a second workspace does not see the first one’s pass-through log records', async () => {
    const traceId = `passthrough-private-${Date.now()}`;
    await gateway.post('/v1/moderations', { input: 'x' }, { ...viaMedia(), 'x-gw-trace-id': traceId });
    expect(await logOfTrace(gateway, traceId)).toMatchObject({ endpoint: 'moderations' });
    const other = await createOrganisation();
    const otherKey = await createKey({ ...other, scopes: ['logs:read', 'completions:write'] });
    expect(await logsWhere(gateway, `trace_id=${traceId}`, otherKey.raw)).toEqual([]);
  });
});

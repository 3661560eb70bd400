import { toFile } from 'openai';
import { describe, expect, it } from 'vitest';
import type { TestGateway } from '../../support/gateway.js';
import { SPEECH_CHUNKS, type MediaMock } from './media-mock.js';
import { BINARY_FILE, multipartBody, readForm, sdkClient, useGatewayWithMedia } from './passthrough-support.js';

let gateway: TestGateway;
let media: MediaMock;

useGatewayWithMedia((started) => ({ gateway, media } = started));

const client = () => sdkClient(gateway, media.url);

describe('pass-through endpoints through the real openai SDK', () => {
  it('images.generate: the JSON body goes through as sent, the provider token as Bearer; rate-limit headers come back', async () => {
    const { data, response } = await client().images.generate({ model: 'gpt-image-1', prompt: 'a red fox', size: '1024x1024' }).withResponse();
    expect(data.data?.[0].b64_json).toBe('aW1hZ2U=');
    const seen = media.requests.at(-1)!;
    expect(seen.path).toBe('/images/generations');
    expect(seen.headers.authorization).toBe('Bearer sk-provider-token');
    expect(seen.headers['x-gw-api-key']).toBeUndefined();
    expect(JSON.parse(seen.body.toString('utf8'))).toEqual({ model: 'gpt-image-1', prompt: 'a red fox', size: '1024x1024' });
    expect(response.headers.get('x-ratelimit-remaining-requests')).toBe('42');
    expect(response.headers.get('x-gw-upstream-request-id')).toBe('req_media_1');
    expect(response.headers.get('x-gw-provider')).toBe('openai');
  });

  it('images.edit with a file: the provider reads the same file bytes and fields the SDK sent', async () => {
    const image = await toFile(BINARY_FILE, 'fox.png', { type: 'image/png' });
    const edited = await client().images.edit({ model: 'gpt-image-1', image, prompt: 'make it blue' });
    expect(edited.data?.[0].b64_json).toBe('aW1hZ2U=');
    const seen = media.requests.at(-1)!;
    expect(seen.path).toBe('/images/edits');
    expect(String(seen.headers['content-type'])).toMatch(/^multipart\/form-data; boundary=/);
    const form = await readForm(seen.body, String(seen.headers['content-type']));
    expect(form.get('prompt')).toBe('make it blue');
    const file = form.get('image') as File;
    expect(file.name).toBe('fox.png');
    expect(Buffer.from(await file.arrayBuffer()).equals(BINARY_FILE)).toBe(true);
  });

  it('a multipart body is forwarded byte for byte, boundary and content-type intact', async () => {
    const { body, contentType } = multipartBody({ model: 'whisper-1', language: 'en' }, { field: 'file', filename: 'a.mp3', type: 'audio/mpeg', bytes: BINARY_FILE });
    const response = await fetch(`${gateway.url}/v1/audio/transcriptions`, {
      method: 'POST',
      headers: { 'content-type': contentType, 'x-gw-api-key': gateway.apiKey, 'x-gw-provider': 'openai', 'x-gw-custom-host': media.url, authorization: 'Bearer sk-provider-token' },
      body,
    });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ text: 'hello world' });
    const seen = media.requests.at(-1)!;
    expect(seen.headers['content-type']).toBe(contentType);
    expect(seen.body.equals(body)).toBe(true);
  });

  it('audio.speech.create: binary audio streams through with the provider’s content-type, bytes identical', async () => {
    let release!: () => void;
    media.holdSpeech(new Promise<void>((resolve) => (release = resolve)));
    const response = await client().audio.speech.create({ model: 'gpt-4o-mini-tts', voice: 'alloy', input: 'Hello there' });
    expect(response.headers.get('content-type')).toBe('audio/mpeg');
    const reader = response.body!.getReader();
    const received: Buffer[] = [];
    // The mock holds everything after its first chunk until that chunk reached the SDK: had gw buffered the
    // audio, this read would never return and the test would time out.
    const first = await reader.read();
    received.push(Buffer.from(first.value!));
    expect(Buffer.concat(received).equals(SPEECH_CHUNKS[0].subarray(0, received[0].length))).toBe(true);
    release();
    for (let next = await reader.read(); !next.done; next = await reader.read()) received.push(Buffer.from(next.value));
    expect(Buffer.concat(received).equals(Buffer.concat(SPEECH_CHUNKS))).toBe(true);
    expect(JSON.parse(media.requests.at(-1)!.body.toString('utf8'))).toEqual({ model: 'gpt-4o-mini-tts', voice: 'alloy', input: 'Hello there' });
  });

  it('audio.transcriptions.create with a file: JSON answers, and text answers when response_format is text', async () => {
    const file = await toFile(BINARY_FILE, 'speech.wav', { type: 'audio/wav' });
    const json = await client().audio.transcriptions.create({ model: 'whisper-1', file });
    expect(json.text).toBe('hello world');
    const form = await readForm(media.requests.at(-1)!.body, String(media.requests.at(-1)!.headers['content-type']));
    expect(Buffer.from(await (form.get('file') as File).arrayBuffer()).equals(BINARY_FILE)).toBe(true);
    const text = await client().audio.transcriptions.create({ model: 'whisper-1', file: await toFile(BINARY_FILE, 'speech.wav'), response_format: 'text' });
    expect(text).toBe('hello world\n');
  });

  it('audio.translations.create and moderations.create', async () => {
    const translation = await client().audio.translations.create({ model: 'whisper-1', file: await toFile(BINARY_FILE, 'speech.wav') });
    expect(translation.text).toBe('hello in English');
    expect(media.requests.at(-1)!.path).toBe('/audio/translations');
    const moderation = await client().moderations.create({ model: 'omni-moderation-latest', input: 'is this fine?' });
    expect(moderation.results[0].flagged).toBe(false);
    expect(media.requests.at(-1)!.path).toBe('/moderations');
  });

  it('rerank (Cohere-style) goes to a provider that has it', async () => {
    const body = { model: 'Salesforce/Llama-Rank-V1', query: 'fox', documents: ['a dog', 'a fox'], top_n: 2 };
    const response = await gateway.post('/v1/rerank', body, { 'x-gw-provider': 'together-ai', 'x-gw-custom-host': media.url, authorization: 'Bearer sk-together' });
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ results: [{ index: 1, relevance_score: 0.9 }, { index: 0 }] });
    const seen = media.requests.at(-1)!;
    expect(seen.path).toBe('/rerank');
    expect(seen.headers.authorization).toBe('Bearer sk-together');
    expect(JSON.parse(seen.body.toString('utf8'))).toEqual(body);
  });

  it('Azure OpenAI: the deployment URL with api-version, the key sent as api-key', async () => {
    const azure = sdkClient(gateway, media.url, {
      'x-gw-provider': 'azure-openai',
      'x-gw-azure-resource-name': 'res',
      'x-gw-azure-deployment-id': 'whisper-prod',
      'x-gw-azure-api-version': '2024-10-21',
    });
    const result = await azure.audio.transcriptions.create({ model: 'whisper-1', file: await toFile(BINARY_FILE, 'speech.wav') });
    expect(result.text).toBe('hello world');
    const seen = media.requests.at(-1)!;
    expect(seen.path).toBe('/openai/deployments/whisper-prod/audio/transcriptions');
    expect(seen.query.get('api-version')).toBe('2024-10-21');
    expect(seen.headers['api-key']).toBe('sk-provider-token');
    expect(seen.headers.authorization).toBeUndefined();
  });
});

import { describe, expect, it } from 'vitest';
import type { TestGateway } from '../../support/gateway.js';
import { createGuardrail } from '../guardrails/guardrails-support.js';
import type { MediaMock } from './media-mock.js';
import { BINARY_FILE, multipartBody, useGatewayWithMedia } from './passthrough-support.js';

let gateway: TestGateway;
let media: MediaMock;

useGatewayWithMedia((started) => ({ gateway, media } = started));

/** A one-target config to the media mock with the given input guardrails. */
const guarded = (ids: string[]) => ({ 'x-gw-config': JSON.stringify({ provider: 'openai', api_key: 'sk-provider-token', custom_host: media.url, input_guardrails: ids }) });

describe('guardrails on pass-through endpoints', () => {
  it('allowed_request_types (chat only) denies an image request before anything is sent', async () => {
    const chatOnly = await createGuardrail(gateway, { name: 'chat only', type: 'allowed_request_types', config: { mode: 'allow', endpoints: ['chat/completions'] } });
    const before = media.requests.length;
    const denied = await gateway.post('/v1/images/generations', { model: 'gpt-image-1', prompt: 'fox' }, guarded([chatOnly.id]));
    expect(denied.status).toBe(400);
    const body = (await denied.json()) as { error: { type: string; code: string; message: string }; status: string };
    expect(body).toMatchObject({ status: 'failure', error: { type: 'guardrail_violation', code: 'guardrail_request_type_not_allowed' } });
    expect(body.error.message).toContain('images/generations');
    expect(media.requests.length).toBe(before);
  });

  it('allowed_request_types in block mode names pass-through endpoints too', async () => {
    const noSpeech = await createGuardrail(gateway, { name: 'no speech', type: 'allowed_request_types', config: { mode: 'block', endpoints: ['audio/speech'] } });
    const before = media.requests.length;
    const denied = await gateway.post('/v1/audio/speech', { model: 'tts-1', input: 'hello', voice: 'alloy' }, guarded([noSpeech.id]));
    expect(denied.status).toBe(400);
    expect(await denied.json()).toMatchObject({ error: { type: 'guardrail_violation', code: 'guardrail_request_type_blocked' } });
    expect(media.requests.length).toBe(before);
    const other = await gateway.post('/v1/images/generations', { model: 'gpt-image-1', prompt: 'fox' }, guarded([noSpeech.id]));
    expect(other.status).toBe(200);
  });

  it('request_params_check sees the JSON fields and the form’s text fields', async () => {
    const noSize = await createGuardrail(gateway, { name: 'no size', type: 'request_params_check', config: { params: { blockedKeys: ['size', 'language'] } } });
    const json = await gateway.post('/v1/images/generations', { model: 'gpt-image-1', prompt: 'fox', size: '1024x1024' }, guarded([noSize.id]));
    expect(json.status).toBe(400);
    expect(await json.json()).toMatchObject({ error: { type: 'guardrail_violation' } });
    const form = multipartBody({ model: 'whisper-1', language: 'de' }, { field: 'file', filename: 'a.wav', type: 'audio/wav', bytes: BINARY_FILE });
    const multipart = await fetch(`${gateway.url}/v1/audio/transcriptions`, { method: 'POST', headers: { 'content-type': form.contentType, 'x-gw-api-key': gateway.apiKey, ...guarded([noSize.id]) }, body: form.body });
    expect(multipart.status).toBe(400);
    expect(await multipart.json()).toMatchObject({ error: { type: 'guardrail_violation' } });
    const allowed = await gateway.post('/v1/images/generations', { model: 'gpt-image-1', prompt: 'fox' }, guarded([noSize.id]));
    expect(allowed.status).toBe(200);
  });

  it('request_params_check judges the fields as sent: a blocked key or value in override_params is refused', async () => {
    const rules = await createGuardrail(gateway, { name: 'no size, no dall-e-3', type: 'request_params_check', config: { params: { blockedKeys: ['size'], values: { model: { blockedValues: ['dall-e-3'] } } } } });
    const withOverride = (override: Record<string, unknown>) => ({
      'x-gw-config': JSON.stringify({ provider: 'openai', api_key: 'sk-provider-token', custom_host: media.url, input_guardrails: [rules.id], override_params: override }),
    });
    const before = media.requests.length;
    const size = await gateway.post('/v1/images/generations', { model: 'gpt-image-1', prompt: 'fox' }, withOverride({ size: '1024x1024' }));
    expect(size.status).toBe(400);
    expect(await size.json()).toMatchObject({ error: { type: 'guardrail_violation', code: 'guardrail_param_blocked', param: 'config.override_params.size' } });
    const form = multipartBody({ model: 'whisper-1' }, { field: 'file', filename: 'a.wav', type: 'audio/wav', bytes: BINARY_FILE });
    const model = await fetch(`${gateway.url}/v1/audio/transcriptions`, { method: 'POST', headers: { 'content-type': form.contentType, 'x-gw-api-key': gateway.apiKey, ...withOverride({ model: 'dall-e-3' }) }, body: form.body });
    expect(model.status).toBe(400);
    expect(await model.json()).toMatchObject({ error: { type: 'guardrail_violation', code: 'guardrail_param_value_blocked', param: 'config.override_params.model' } });
    expect(media.requests.length).toBe(before);
    // Harmless override params still go out.
    expect((await gateway.post('/v1/images/generations', { model: 'gpt-image-1', prompt: 'fox' }, withOverride({ quality: 'low' }))).status).toBe(200);
  });

  it('add_prefix does not apply: the form still goes through byte for byte', async () => {
    const prefix = await createGuardrail(gateway, { name: 'prefix', type: 'add_prefix', config: { prefix: '[safe] ' } });
    const form = multipartBody({ model: 'whisper-1', prompt: 'context' }, { field: 'file', filename: 'a.wav', type: 'audio/wav', bytes: BINARY_FILE });
    const response = await fetch(`${gateway.url}/v1/audio/transcriptions`, { method: 'POST', headers: { 'content-type': form.contentType, 'x-gw-api-key': gateway.apiKey, ...guarded([prefix.id]) }, body: form.body });
    expect(response.status).toBe(200);
    expect(media.requests.at(-1)!.body.equals(form.body)).toBe(true);
  });
});

import { readFileSync } from 'node:fs';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';

/**
 * Unknown paths: a wrong base URL (the usual first mistake) gets a 404 that names the path gw serves, before any
 * authentication message, in the shape the sending client reads. The clients are the real SDKs, set up wrong the
 * way newcomers do it; Claude Code's request is its captured one (test/fixtures/anthropic/claude-code-2.1-request.json).
 */
let gateway: TestGateway;
beforeAll(async () => {
  gateway = await startTestGateway();
});
afterAll(async () => {
  await gateway?.close();
});

const claudeCode = JSON.parse(readFileSync(new URL('../../fixtures/anthropic/claude-code-2.1-request.json', import.meta.url), 'utf8')) as {
  query: string;
  headers: Record<string, string>;
  body: Record<string, unknown>;
};

interface OpenAIShaped { error: { message: string; type: string; code: string; param: null } }
interface AnthropicShaped { type: string; error: { type: string; message: string } }

describe('unknown paths name the path gw serves (wrong base URL)', () => {
  it.each([
    ['gw key in Authorization (apiKey)', (key: string) => ({ apiKey: key })],
    ['gw key in x-gw-api-key', (key: string) => ({ apiKey: 'sk-provider', defaultHeaders: { 'x-gw-api-key': key } })],
    ['no key at all', () => ({ apiKey: 'not-a-gw-key' })],
  ])('OpenAI SDK with a base URL without /v1 (%s): 404 naming /v1/chat/completions, not 401', async (_, options) => {
    const client = new OpenAI({ baseURL: gateway.url, maxRetries: 0, ...options(gateway.apiKey) });
    const error = await client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }).catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(OpenAI.NotFoundError);
    const body = (error as InstanceType<typeof OpenAI.NotFoundError>).error as OpenAIShaped['error'];
    expect(body).toMatchObject({ type: 'not_found_error', code: 'route_not_found', param: null });
    expect(body.message).toContain('POST /v1/chat/completions');
    expect(body.message).toContain('missing /v1');
  });

  it('the same for the Responses and embeddings paths, and the header names the path for programs', async () => {
    for (const path of ['/responses', '/embeddings']) {
      const response = await fetch(`${gateway.url}${path}`, { method: 'POST', headers: { authorization: `Bearer ${gateway.apiKey}`, 'content-type': 'application/json' }, body: '{}' });
      expect(response.status).toBe(404);
      expect(response.headers.get('x-gw-expected-path')).toBe(`/v1${path}`);
      expect(((await response.json()) as OpenAIShaped).error.message).toContain(`/v1${path}`);
    }
  });

  it.each([
    ['gw key as x-api-key (apiKey)', (key: string) => ({ apiKey: key })],
    ['gw key as Authorization (authToken)', (key: string) => ({ apiKey: null, authToken: key })],
  ])('Anthropic SDK with a base URL ending in /v1 (%s): 404 not_found_error in Anthropic’s shape naming /v1/messages', async (_, options) => {
    const client = new Anthropic({ baseURL: `${gateway.url}/v1`, maxRetries: 0, ...options(gateway.apiKey) });
    const error = await client.messages.create({ model: 'claude-sonnet-4-5', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] }).catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(Anthropic.NotFoundError);
    const body = (error as InstanceType<typeof Anthropic.NotFoundError>).error as AnthropicShaped;
    expect(body.type).toBe('error');
    expect(body.error.type).toBe('not_found_error');
    expect(body.error.message).toContain('POST /v1/messages');
    expect(body.error.message).toContain('without /v1');
  });

  it('Claude Code with ANTHROPIC_BASE_URL ending in /v1: its request gets a 404 in Anthropic’s shape, before any authentication', async () => {
    const choices: Array<Record<string, string>> = [{ authorization: `Bearer ${gateway.apiKey}` }, { 'x-api-key': gateway.apiKey }, {}];
    for (const credentials of choices) {
      const response = await fetch(`${gateway.url}/v1/v1/messages?${claudeCode.query}`, { method: 'POST', headers: { ...claudeCode.headers, ...credentials }, body: JSON.stringify(claudeCode.body) });
      expect(response.status).toBe(404);
      const body = (await response.json()) as AnthropicShaped;
      expect(body).toMatchObject({ type: 'error', error: { type: 'not_found_error' } });
      expect(body.error.message).toContain('ANTHROPIC_BASE_URL');
      expect(response.headers.get('x-gw-expected-path')).toBe('/v1/messages');
    }
  });

  it('a path gw serves nowhere is a 404 too, before authentication, naming where inference lives', async () => {
    const response = await fetch(`${gateway.url}/v1/chat/completion`, { method: 'POST', body: '{}' });
    expect(response.status).toBe(404);
    const body = (await response.json()) as OpenAIShaped;
    expect(body.error.code).toBe('route_not_found');
    expect(body.error.message).toContain('/v1/chat/completions');
  });

  // Class: a routing error (wrong path or wrong method) is answered in the sender's dialect, before authentication.
  it.each([
    ['GET', '/v1/messages', { 'anthropic-version': '2023-06-01', 'x-api-key': 'not-a-gw-key' }],
    ['GET', '/v1/messages', {}],
    ['DELETE', '/v1/messages/count_tokens', { 'anthropic-version': '2023-06-01' }],
  ])('%s %s (an Anthropic path, wrong method): 405 in Anthropic’s shape with Allow, before authentication', async (method, path, headers) => {
    const response = await fetch(`${gateway.url}${path}`, { method, headers });
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toContain('POST');
    const body = (await response.json()) as AnthropicShaped;
    expect(body).toMatchObject({ type: 'error', error: { type: 'invalid_request_error' } });
    expect(body.error.message).toContain(`${method} is not allowed on ${path}`);
    expect(response.headers.get('x-gw-error-code')).toBe('method_not_allowed');
  });

  it('GET /v1/chat/completions (an OpenAI path, wrong method): 405 in OpenAI’s shape with Allow, before authentication', async () => {
    const response = await fetch(`${gateway.url}/v1/chat/completions`);
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toContain('POST');
    const body = (await response.json()) as OpenAIShaped;
    expect(body.error).toMatchObject({ type: 'invalid_request_error', code: 'method_not_allowed' });
  });

  it('a real control-plane path without credentials is still a 401: only unknown paths are answered first', async () => {
    const response = await fetch(`${gateway.url}/v1/configs`);
    expect(response.status).toBe(401);
  });
});

import { readFileSync } from 'node:fs';
import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { SseDecoder } from '../../../shared/http/sse.js';
import { targetHeaders, useDialectRig, type DialectRig } from './dialect-setup.js';

let rig: DialectRig;
useDialectRig((started) => (rig = started));

type Json = Record<string, unknown>;
interface CapturedRequest { path: string; query: string; headers: Record<string, string>; body: Json }

/** Claude Code 2.1.x's request as the CLI sends it (test/fixtures/anthropic/claude-code-2.1-request.json). */
const captured = JSON.parse(readFileSync(new URL('../../fixtures/anthropic/claude-code-2.1-request.json', import.meta.url), 'utf8')) as CapturedRequest;
const PROVIDER_KEY = 'sk-ant-provider-key-0123456789';

/** Sends the captured request to gw the way Claude Code does, with `headers` for its environment settings. */
function sendAsClaudeCode(headers: Record<string, string>, body: Json = captured.body): Promise<Response> {
  return fetch(`${rig.gateway.url}${captured.path}?${captured.query}`, { method: 'POST', headers: { ...captured.headers, ...headers }, body: JSON.stringify(body) });
}

async function events(response: Response): Promise<Json[]> {
  const decoder = new SseDecoder();
  const parsed = [...decoder.push(new Uint8Array(await response.arrayBuffer())), ...decoder.end()];
  return parsed.map((event) => JSON.parse(event.data) as Json);
}

describe('Claude Code 2.1.x through gw', () => {
  it('goes to an Anthropic target untouched: body, betas and version as sent, gw key (ANTHROPIC_AUTH_TOKEN) kept out', async () => {
    const before = rig.anthropic.requests.length;
    // ANTHROPIC_AUTH_TOKEN=<gw key> → Authorization: Bearer; ANTHROPIC_API_KEY=<provider key> → x-api-key.
    const response = await sendAsClaudeCode({ authorization: `Bearer ${rig.gateway.apiKey}`, 'x-api-key': PROVIDER_KEY, ...targetHeaders('anthropic', rig.anthropic) });
    expect(response.status).toBe(200);
    expect((await events(response)).map((event) => event.type).at(-1)).toBe('message_stop');
    const upstream = rig.anthropic.requests.slice(before);
    expect(upstream).toHaveLength(1);
    expect(upstream[0].json).toEqual(captured.body);
    expect(upstream[0].headers['anthropic-beta']).toBe(captured.headers['anthropic-beta']);
    expect(upstream[0].headers['anthropic-version']).toBe('2023-06-01');
    expect(upstream[0].headers['x-api-key']).toBe(PROVIDER_KEY);
    expect(JSON.stringify(upstream[0].headers)).not.toContain(rig.gateway.apiKey);
  });

  it('translated to an OpenAI-format target: the system turn stays a system message in place, adaptive thinking takes output_config.effort', async () => {
    const before = rig.openai.requests.length;
    const response = await sendAsClaudeCode({ 'x-api-key': rig.gateway.apiKey, authorization: `Bearer ${'sk-openai-key'}`, 'x-gw-drop-unsupported-params': 'true', ...targetHeaders('openai', rig.openai) });
    expect(response.status).toBe(200);
    expect(response.headers.get('x-gw-dropped-params')).toBe('context_management');
    const types = (await events(response)).map((event) => event.type);
    expect(types[0]).toBe('message_start');
    expect(types.at(-1)).toBe('message_stop');
    const sent = rig.openai.requests.slice(before)[0].json as Json;
    const messages = sent.messages as Json[];
    expect(messages.map((message) => message.role)).toEqual(['system', 'user', 'system', 'assistant', 'tool', 'user']);
    expect(messages[2].content).toContain('TodoWrite');
    expect(sent.reasoning_effort).toBe('medium');
    expect(sent).not.toHaveProperty('context_management');
    expect(sent).not.toHaveProperty('output_config');
    expect((sent.tools as Json[]).map((tool) => (tool.function as Json).name)).toEqual(['Bash', 'Read']);
  });

  it('context-window hints: Claude Code’s default request reaches an OpenAI target without the drop header, context_management dropped and named', async () => {
    const before = rig.openai.requests.length;
    const response = await sendAsClaudeCode({ 'x-gw-api-key': rig.gateway.apiKey, authorization: 'Bearer sk-openai-key', ...targetHeaders('openai', rig.openai) });
    expect(response.status).toBe(200);
    expect(response.headers.get('x-gw-dropped-params')).toBe('context_management');
    expect((await events(response)).map((event) => event.type).at(-1)).toBe('message_stop');
    expect(rig.openai.requests.slice(before)[0].json).not.toHaveProperty('context_management');
  });

  it('translated without x-gw-drop-unsupported-params: a field that changes the answer is still a 400 in Anthropic’s shape naming it', async () => {
    const response = await sendAsClaudeCode({ 'x-gw-api-key': rig.gateway.apiKey, authorization: 'Bearer sk-openai-key', ...targetHeaders('openai', rig.openai) }, { ...captured.body, top_k: 5 });
    expect(response.status).toBe(400);
    const body = (await response.json()) as { type: string; error: { type: string; message: string } };
    expect(body.type).toBe('error');
    expect(body.error.type).toBe('invalid_request_error');
    expect(body.error.message).toContain('`top_k`');
    expect(response.headers.get('x-gw-error-code')).toBe('unsupported_parameter');
  });

  it('refuses a role translation cannot map, naming it', async () => {
    const body = { ...captured.body, context_management: undefined, messages: [{ role: 'narrator', content: 'x' }] };
    const response = await sendAsClaudeCode({ 'x-gw-api-key': rig.gateway.apiKey, authorization: 'Bearer sk-openai-key', ...targetHeaders('openai', rig.openai) }, body);
    expect(response.status).toBe(400);
    expect(response.headers.get('x-gw-error-code')).toBe('invalid_message');
    expect(((await response.json()) as { error: { message: string } }).error.message).toContain("messages.0.role 'narrator'");
  });

  it('gw’s key as an OpenAI client’s apiKey works on the chat route too, and is not sent upstream', async () => {
    const before = rig.openai.requests.length;
    const config = JSON.stringify({ provider: 'openai', api_key: 'sk-from-config', custom_host: rig.openai.url });
    const client = new OpenAI({ apiKey: rig.gateway.apiKey, baseURL: `${rig.gateway.url}/v1`, maxRetries: 0, defaultHeaders: { 'x-gw-config': config } });
    const completion = await client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Hi' }] });
    expect(completion.choices[0].message.content).toBeTruthy();
    const upstream = rig.openai.requests.slice(before);
    expect(upstream[0].headers.authorization).toBe('Bearer sk-from-config');
    expect(JSON.stringify(upstream[0].headers)).not.toContain(rig.gateway.apiKey);
  });

  it('a key that is not gw’s in the client key headers is still the provider key: no gw key, 401', async () => {
    const response = await sendAsClaudeCode({ authorization: 'Bearer sk-not-a-gw-key', 'x-api-key': PROVIDER_KEY, ...targetHeaders('anthropic', rig.anthropic) });
    expect(response.status).toBe(401);
  });
});

import { beforeAll, describe, expect, it } from 'vitest';
import { drainAllBackgroundWork } from '../../../shared/observability/background.js';
import type { PromptView } from '../../../shared/control-plane/prompts/schemas.js';
import type { TestGateway } from '../../support/gateway.js';
import { useGatewayWithUpstream } from '../../support/harness.js';
import { openAIMockHandler } from '../../support/mock-openai.js';
import type { MockUpstream } from '../../support/mock-upstream.js';
import { requestLogsOfTrace } from '../../support/request-logs.js';
import { readSseEvents } from '../../support/sse-client.js';
import { api, expectError, newKey, newWorkspace, type Reply } from '../control-plane/identities-support.js';

let gateway: TestGateway;
let upstream: MockUpstream;
let prompt: PromptView;
let renderOnly: string;
let completionsOnly: string;
let both: string;
let otherWorkspaceKey: string;
useGatewayWithUpstream(openAIMockHandler({ content: 'Paris is the capital.' }), (started) => ({ gateway, upstream } = started));
beforeAll(async () => {
  const created = await api<PromptView>(gateway, 'POST', '/v1/prompts', {
    body: {
      name: 'capital',
      messages: [
        { role: 'system', content: 'You answer geography questions about {{region}}.' },
        { role: 'user', content: 'What is the capital of {{country}}?' },
      ],
      model: 'gpt-4o-mini',
      hyperparameters: { temperature: 0.1, max_tokens: 50 },
    },
  });
  expect(created.status).toBe(201);
  prompt = created.body;
  renderOnly = (await newKey(gateway, { scopes: ['prompts:render'] })).key;
  completionsOnly = (await newKey(gateway, { scopes: ['completions:write'] })).key;
  both = (await newKey(gateway, { scopes: ['prompts:render', 'completions:write'] })).key;
  const other = await newWorkspace(gateway);
  otherWorkspaceKey = (await newKey(gateway, { workspace_id: other.id, scopes: ['prompts:render', 'completions:write'] })).key;
});

const providerHeaders = () => ({ 'x-gw-provider': 'openai', 'x-gw-custom-host': upstream.url, authorization: 'Bearer sk-provider' });
const variables = { region: 'Europe', country: 'France' };

async function complete(promptId: string, body: unknown, headers: Record<string, string> = providerHeaders(), key: string | null = gateway.apiKey, query = '') {
  return fetch(`${gateway.url}/v1/prompts/${promptId}/completions${query}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(key === null ? {} : { 'x-gw-api-key': key }), ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

async function asReply(response: Response): Promise<Reply<unknown>> {
  return { status: response.status, headers: response.headers, body: await response.json() };
}

describe('POST /v1/prompts/{promptId}/completions', () => {
  it('renders the prompt and runs it as a chat completion through the gateway', async () => {
    const response = await complete(prompt.id, { variables, max_tokens: 20, user: 'user-42' }, { ...providerHeaders(), 'x-gw-trace-id': 'prompt-trace-1' });
    expect(response.status).toBe(200);
    expect(response.headers.get('x-gw-provider')).toBe('openai');
    expect(response.headers.get('x-gw-trace-id')).toBe('prompt-trace-1');
    const answer = (await response.json()) as { object: string; choices: Array<{ message: { content: string } }> };
    expect(answer.object).toBe('chat.completion');
    expect(answer.choices[0].message.content).toBe('Paris is the capital.');
    const seen = upstream.requests.at(-1)!;
    expect(seen.path).toBe('/chat/completions');
    expect(seen.headers.authorization).toBe('Bearer sk-provider');
    expect(seen.json).toEqual({
      messages: [
        { role: 'system', content: 'You answer geography questions about Europe.' },
        { role: 'user', content: 'What is the capital of France?' },
      ],
      model: 'gpt-4o-mini',
      temperature: 0.1,
      max_tokens: 20,
      user: 'user-42',
    });
  });

  it('records the prompt id as the _prompt metadata of the request log, beside the caller’s metadata', async () => {
    const headers = { ...providerHeaders(), 'x-gw-trace-id': 'prompt-trace-metadata', 'x-gw-metadata': JSON.stringify({ _user: 'alice' }) };
    expect((await complete(prompt.id, { variables }, headers)).status).toBe(200);
    await drainAllBackgroundWork();
    const logged = await requestLogsOfTrace('prompt-trace-metadata');
    expect(logged).toHaveLength(1);
    expect(logged[0].metadata).toEqual({ _prompt: prompt.id, _user: 'alice' });
    expect((upstream.requests.at(-1)!.json as { user: string }).user).toBe('alice');
  });

  it('sends exactly what /render returns for the same body', async () => {
    const body = { variables, temperature: 0.7, seed: 7 };
    const rendered = await api<{ data: unknown }>(gateway, 'POST', `/v1/prompts/${prompt.id}/render`, { body });
    expect((await complete(prompt.id, body)).status).toBe(200);
    expect(upstream.requests.at(-1)!.json).toEqual(rendered.body.data);
  });

  it('streams when the body says stream: true', async () => {
    const response = await complete(prompt.id, { variables, stream: true });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('text/event-stream');
    const events = await readSseEvents(response);
    expect(events.at(-1)?.data).toBe('[DONE]');
    const text = events
      .filter((event) => event.data !== '[DONE]')
      .map((event) => (JSON.parse(event.data) as { choices: Array<{ delta: { content?: string } }> }).choices[0]?.delta.content ?? '')
      .join('');
    expect(text).toBe('Paris is the capital.');
    expect((upstream.requests.at(-1)!.json as { stream: boolean }).stream).toBe(true);
  });

  it('applies configs and virtual keys like any chat completion', async () => {
    const config = JSON.stringify({ provider: 'openai', api_key: 'sk-from-config', custom_host: upstream.url, override_params: { model: 'config-model' } });
    const configured = await complete(prompt.id, { variables }, { 'x-gw-config': config });
    expect(configured.status).toBe(200);
    expect(upstream.requests.at(-1)!.headers.authorization).toBe('Bearer sk-from-config');
    expect((upstream.requests.at(-1)!.json as { model: string }).model).toBe('config-model');

    const key = await api<{ id: string }>(gateway, 'POST', '/v1/virtual-keys', { body: { provider: 'openai', credential: 'sk-from-virtual-key', custom_host: upstream.url } });
    const viaKey = await complete(prompt.id, { variables }, { 'x-gw-virtual-key': key.body.id });
    expect(viaKey.status).toBe(200);
    expect(upstream.requests.at(-1)!.headers.authorization).toBe('Bearer sk-from-virtual-key');
  });

  it('selects a version with ?version= or ?label=', async () => {
    await api(gateway, 'PATCH', `/v1/prompts/${prompt.id}`, { body: { model: 'gpt-4o' } });
    expect((await complete(prompt.id, { variables })).status).toBe(200);
    expect((upstream.requests.at(-1)!.json as { model: string }).model).toBe('gpt-4o-mini');
    expect((await complete(prompt.id, { variables }, providerHeaders(), gateway.apiKey, '?label=latest')).status).toBe(200);
    expect((upstream.requests.at(-1)!.json as { model: string }).model).toBe('gpt-4o');
  });

  it('reports render errors before any upstream call', async () => {
    const before = upstream.requests.length;
    expectError(await asReply(await complete(prompt.id, { variables: { region: 'Asia' } })), 400, 'missing_variables', { param: 'variables', message: /country/ });
    expectError(await asReply(await complete(prompt.id, { variables, hyperparameters: { max_tokens: 5 } })), 400, 'nested_hyperparameters', { param: 'hyperparameters' });
    expectError(await asReply(await complete(prompt.id, {})), 400, 'invalid_request', { param: 'variables' });
    expectError(await asReply(await complete(prompt.id, '{oops')), 400, 'invalid_json');
    expectError(await asReply(await complete('00000000-0000-0000-0000-000000000000', { variables })), 404, 'not_found');
    expectError(await asReply(await complete(prompt.id, { variables }, providerHeaders(), gateway.apiKey, '?version=99')), 404, 'not_found');
    expect(upstream.requests.length).toBe(before);
  });

  it('passes gateway errors of the chat route through (no provider named)', async () => {
    const reply = await asReply(await complete(prompt.id, { variables }, {}));
    expectError(reply, 400, 'missing_provider', { param: 'x-gw-provider' });
    expect(reply.headers.get('x-gw-trace-id')).toEqual(expect.any(String));
  });

  it('needs both prompts:render and completions:write, in the prompt’s workspace', async () => {
    expectError(await asReply(await complete(prompt.id, { variables }, providerHeaders(), null)), 401, 'api_key_missing');
    expectError(await asReply(await complete(prompt.id, { variables }, providerHeaders(), renderOnly)), 403, 'missing_scope', { message: /completions:write/ });
    expectError(await asReply(await complete(prompt.id, { variables }, providerHeaders(), completionsOnly)), 403, 'missing_scope', { message: /prompts:render/ });
    expectError(await asReply(await complete(prompt.id, { variables }, providerHeaders(), otherWorkspaceKey)), 404, 'not_found');
    expect((await complete(prompt.id, { variables }, providerHeaders(), both)).status).toBe(200);
  });

  it('is served by the gateway, and only POST is allowed', async () => {
    const response = await fetch(`${gateway.url}/v1/prompts/${prompt.id}/completions`, { headers: { 'x-gw-api-key': gateway.apiKey } });
    const reply = await asReply(response);
    expectError(reply, 405, 'method_not_allowed');
    expect(reply.headers.get('allow')).toBe('POST');
    expect(reply.headers.get('x-gw-cache-status')).toBe('DISABLED');
  });
});

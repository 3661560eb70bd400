import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PromptView, RenderedPrompt } from '../../../shared/control-plane/prompts/schemas.js';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';
import { openAIMockHandler } from '../../support/mock-openai.js';
import { startMockUpstream, type MockUpstream } from '../../support/mock-upstream.js';
import { api, expectError, newKey, newWorkspace, type Reply } from './identities-support.js';

/** The rendered prompt exactly as the spec's table shows it (`data` of the render response). */
const SPEC_RENDERED_PROMPT = {
  messages: [{ content: '<string>', role: 'system', name: '<string>' }],
  model: 'gpt-4-turbo',
  frequency_penalty: 0,
  logit_bias: null,
  logprobs: false,
  top_logprobs: 10,
  max_tokens: 123,
  n: 1,
  presence_penalty: 0,
  response_format: { type: 'text' },
  seed: 0,
  stop: '<string>',
  stream: false,
  stream_options: null,
  thinking: { type: 'enabled', budget_tokens: 2030 },
  temperature: 1,
  top_p: 1,
  tools: [{ type: 'function', function: { name: '<string>', description: '<string>', parameters: {}, strict: false } }],
  tool_choice: 'none',
  parallel_tool_calls: true,
  user: 'user-1234',
  function_call: 'none',
  functions: [{ name: '<string>', description: '<string>', parameters: {} }],
};

let gateway: TestGateway;
let upstream: MockUpstream;
let readOnly: string;
let otherWorkspaceRenderer: string;

type RenderReply = Reply<{ success: boolean; data: RenderedPrompt }>;
const call = <Body = PromptView>(method: string, path: string, options: Parameters<typeof api>[3] = {}): Promise<Reply<Body>> => api<Body>(gateway, method, path, options);
const render = (promptId: string, body: unknown, options: { key?: string | null; query?: string } = {}): Promise<RenderReply> =>
  call('POST', `/v1/prompts/${promptId}/render${options.query ?? ''}`, { body, key: options.key });

async function createPrompt(body: Record<string, unknown>): Promise<PromptView> {
  const reply = await call('POST', '/v1/prompts', { body: { name: 'render test', ...body } });
  expect(reply.status, JSON.stringify(reply.body)).toBe(201);
  return reply.body;
}

beforeAll(async () => {
  upstream = await startMockUpstream(openAIMockHandler());
  gateway = await startTestGateway();
  readOnly = (await newKey(gateway, { scopes: ['prompts:read'] })).key;
  const other = await newWorkspace(gateway);
  otherWorkspaceRenderer = (await newKey(gateway, { workspace_id: other.id, scopes: ['prompts:render', 'prompts:read'] })).key;
});
afterAll(async () => {
  await gateway?.close();
  await upstream?.close();
});

describe('POST /v1/prompts/{promptId}/render: the spec contract', () => {
  it('renders the spec’s example table exactly, and that data posted unchanged is a chat completion', async () => {
    const { messages: _messages, max_tokens: _maxTokens, presence_penalty: _presence, stream: _stream, model, ...defaults } = SPEC_RENDERED_PROMPT;
    const prompt = await createPrompt({ messages: [{ role: 'system', content: '{{content}}', name: '{{name}}' }], model, hyperparameters: defaults });

    // Parameters go at the root beside variables, never under "hyperparameters".
    const reply = await render(prompt.id, { variables: { content: '<string>', name: '<string>' }, stream: false, max_tokens: 123, presence_penalty: 0 });
    expect(reply.status).toBe(200);
    expect(reply.headers.get('content-type')).toContain('application/json');
    expect(reply.body).toEqual({ success: true, data: SPEC_RENDERED_PROMPT });

    const completion = await fetch(`${gateway.url}/v1/chat/completions`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-gw-api-key': gateway.apiKey,
        'x-gw-provider': 'openai',
        'x-gw-custom-host': upstream.url,
        authorization: 'Bearer sk-provider',
      },
      body: JSON.stringify(reply.body.data),
    });
    expect(completion.status).toBe(200);
    const answer = (await completion.json()) as { object: string; choices: Array<{ message: { content: string } }> };
    expect(answer.object).toBe('chat.completion');
    expect(answer.choices[0].message.content).toBe('Hello from the mock provider!');
    expect(upstream.requests.at(-1)!.json).toEqual(SPEC_RENDERED_PROMPT);
  });

  it('refuses a body with a hyperparameters key with a 400 that says to use the root', async () => {
    const prompt = await createPrompt({ messages: [{ role: 'user', content: '{{q}}' }], model: 'gpt-4o-mini' });
    const reply = await render(prompt.id, { variables: { q: 'x' }, hyperparameters: { max_tokens: 250 } });
    expectError(reply, 400, 'nested_hyperparameters', { param: 'hyperparameters', message: /root of the body, beside variables/ });
  });

  it('names every missing variable in a 400', async () => {
    const prompt = await createPrompt({
      messages: [
        { role: 'system', content: 'You work for {{company}} in {{ city }}.' },
        { role: 'user', content: [{ type: 'text', text: '{{question}} ({{user.name}})' }] },
      ],
    });
    const reply = await render(prompt.id, { variables: { city: 'Oslo', user: {} } });
    expectError(reply, 400, 'missing_variables', { param: 'variables', message: 'Missing variables: company, question, user.name; send them in "variables"' });
  });

  it('answers 404 for an unknown prompt, version or label', async () => {
    expectError(await render('00000000-0000-0000-0000-000000000000', { variables: {} }), 404, 'not_found', { message: /No prompt/ });
    expectError(await render('not a prompt id', { variables: {} }), 404, 'not_found');
    const prompt = await createPrompt({ messages: [{ role: 'user', content: 'static' }] });
    expectError(await render(prompt.id, { variables: {} }, { query: '?version=2' }), 404, 'not_found', { message: /no version 2/ });
    expectError(await render(prompt.id, { variables: {} }, { query: '?label=beta' }), 404, 'not_found', { message: /no label 'beta'/ });
  });

  it('refuses each invalid body with a 400 naming the field', async () => {
    const prompt = await createPrompt({ messages: [{ role: 'user', content: '{{q}}' }] });
    expectError(await render(prompt.id, {}), 400, 'invalid_request', { param: 'variables' });
    expectError(await render(prompt.id, { variables: ['q'] }), 400, 'invalid_request', { param: 'variables' });
    expectError(await render(prompt.id, { variables: 'q=1' }), 400, 'invalid_request', { param: 'variables' });
    expectError(await render(prompt.id, { variables: { q: 1 }, temperature: 'hot' }), 400, 'invalid_request', { param: 'temperature' });
    expectError(await render(prompt.id, { variables: { q: 1 }, stream: 'yes' }), 400, 'invalid_request', { param: 'stream' });
    expectError(await render(prompt.id, { variables: { q: 1 }, max_tokens: 1.5 }), 400, 'invalid_request', { param: 'max_tokens' });
    expectError(await render(prompt.id, { variables: { q: 1 }, top_k: 5 }), 400, 'invalid_request', { message: /top_k/ });
    expectError(await render(prompt.id, { variables: { q: 1 }, messages: [{ content: 'no role' }] }), 400, 'invalid_request', { param: 'messages[0].role' });
    expectError(await render(prompt.id, '{"variables":'), 400, 'invalid_json');
    expectError(await render(prompt.id, [1, 2]), 400, 'invalid_request');
  });
});

describe('rendering rules', () => {
  it('substitutes without HTML escaping, writes objects as JSON, and treats sections as conditions', async () => {
    const prompt = await createPrompt({
      messages: [
        { role: 'system', content: 'Customer: {{customer.name}}{{#vip}} (VIP){{/vip}}{{^vip}} (regular){{/vip}}' },
        { role: 'user', content: 'Q: {{question}} | count={{count}} | ctx={{context}} | raw={{{question}}}' },
      ],
    });
    const question = `<b>"Tom" & 'Jerry'</b>`;
    const reply = await render(prompt.id, { variables: { customer: { name: 'Ann' }, question, count: 3, context: { plan: 'pro', seats: [1, 2] } } });
    expect(reply.status).toBe(200);
    expect(reply.body.data.messages).toEqual([
      { role: 'system', content: 'Customer: Ann (regular)' },
      { role: 'user', content: `Q: ${question} | count=3 | ctx={"plan":"pro","seats":[1,2]} | raw=${question}` },
    ]);
    const vip = await render(prompt.id, { variables: { customer: { name: 'Bo' }, vip: true, question: 'q', count: 0, context: null } });
    expect(vip.body.data.messages[0].content).toBe('Customer: Bo (VIP)');
    expect(vip.body.data.messages[1].content).toBe('Q: q | count=0 | ctx= | raw=q');
  });

  it('lets root parameters override the stored defaults and appends root messages unrendered', async () => {
    const prompt = await createPrompt({
      messages: [{ role: 'system', content: 'Be {{tone}}.' }],
      model: 'gpt-4o-mini',
      hyperparameters: { temperature: 0.2, max_tokens: 100, stop: ['END'] },
    });
    const reply = await render(prompt.id, {
      variables: { tone: 'brief' },
      model: 'gpt-4o',
      temperature: 0.9,
      stream: true,
      stream_options: { include_usage: true },
      messages: [{ role: 'user', content: 'Literal {{tone}} stays' }],
    });
    expect(reply.body.data).toEqual({
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Literal {{tone}} stays' },
      ],
      model: 'gpt-4o',
      temperature: 0.9,
      max_tokens: 100,
      stop: ['END'],
      stream: true,
      stream_options: { include_usage: true },
    });
  });

  it('renders the published version by default and another version or label on request', async () => {
    const prompt = await createPrompt({ messages: [{ role: 'user', content: 'v1 {{x}}' }] });
    await call('PATCH', `/v1/prompts/${prompt.id}`, { body: { messages: [{ role: 'user', content: 'v2 {{x}}' }] } });
    const content = async (query = '') => (await render(prompt.id, { variables: { x: '!' } }, { query })).body.data.messages[0].content;
    expect(await content()).toBe('v1 !');
    expect(await content('?version=2')).toBe('v2 !');
    expect(await content('?label=latest')).toBe('v2 !');
    await call('PUT', `/v1/prompts/${prompt.id}/labels/canary`, { body: { version: 2 } });
    expect(await content('?label=canary')).toBe('v2 !');
    await call('POST', `/v1/prompts/${prompt.id}/versions/2/publish`);
    expect(await content()).toBe('v2 !');
  });
});

describe('render authorisation', () => {
  it('needs a key with prompts:render, in the prompt’s workspace', async () => {
    const prompt = await createPrompt({ messages: [{ role: 'user', content: 'hello' }] });
    expectError(await render(prompt.id, { variables: {} }, { key: null }), 401, 'api_key_missing');
    expectError(await render(prompt.id, { variables: {} }, { key: 'gwk_wrong' }), 401, 'api_key_invalid');
    expectError(await render(prompt.id, { variables: {} }, { key: readOnly }), 403, 'missing_scope', { message: /prompts:render/ });
    expectError(await render(prompt.id, { variables: {} }, { key: otherWorkspaceRenderer }), 404, 'not_found');
    expect((await render(prompt.id, { variables: {} })).status).toBe(200);
  });
});

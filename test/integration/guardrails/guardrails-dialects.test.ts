import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { drainAllBackgroundWork } from '../../../shared/observability/background.js';
import type { TestGateway } from '../../support/gateway.js';
import { useGatewayWithUpstream } from '../../support/harness.js';
import { anthropicMockHandler } from '../../support/mock-anthropic.js';
import { openAIDialectsMockHandler } from '../../support/mock-openai-dialects.js';
import type { MockUpstream } from '../../support/mock-upstream.js';
import { createGuardrail, expectDenied, mockTarget, send, toMock, type GuardrailBody, type Sent } from './guardrails-support.js';

// The inbound dialects: /v1/responses and /v1/messages bodies are guarded in their own shape, and the provider
// receives the prefix where the dialect keeps the user's input.
let gateway: TestGateway;
let upstream: MockUpstream;
let prefix: GuardrailBody;
let noWebSearch: GuardrailBody;
let noTools: GuardrailBody;
// One mock answers both wire formats, as the providers would: Anthropic's /messages, OpenAI's chat and /responses.
const openai = openAIDialectsMockHandler();
const anthropicApi = anthropicMockHandler();
useGatewayWithUpstream((request) => (request.path.endsWith('/messages') ? anthropicApi(request) : openai(request)), (started) => ({ gateway, upstream } = started));
afterAll(() => drainAllBackgroundWork());
beforeAll(async () => {
  prefix = await createGuardrail(gateway, { name: 'prefix', type: 'add_prefix', config: { prefix: '[p] ' } });
  noWebSearch = await createGuardrail(gateway, { name: 'no web search', type: 'request_params_check', config: { tools: { blockedTypes: ['web_search'] } } });
  noTools = await createGuardrail(gateway, { name: 'no tools', type: 'request_params_check', config: { tools: { allowedTypes: [] } } });
});

const toOpenAI = (ids: string[]) => toMock(upstream, { ...mockTarget(upstream), input_guardrails: ids });
const anthropic = (ids: string[]) => toMock(upstream, { provider: 'anthropic', api_key: 'sk-ant', custom_host: upstream.url, input_guardrails: ids });
const lastUpstream = () => upstream.requests.at(-1)!;

/** /v1/messages answers errors in Anthropic's shape; the message names the guardrail and the rule. */
function expectMessagesDenied(sent: Sent, guardrail: GuardrailBody, reason: string): void {
  expect(sent.status, JSON.stringify(sent.body)).toBe(400);
  expect(sent.body).toMatchObject({ type: 'error', error: { type: 'invalid_request_error' } });
  expect((sent.body.error as unknown as { message: string }).message).toContain(`(${guardrail.id}): ${reason}`);
}

describe('guardrails on /v1/responses', () => {
  it('prefixes a string input and the last user message item; instructions stay as they are', async () => {
    expect((await send(gateway, '/v1/responses', { model: 'gpt-4o-mini', input: 'Hi', instructions: 'Be brief' }, toOpenAI([prefix.id]))).status).toBe(200);
    expect(lastUpstream().json).toMatchObject({ input: '[p] Hi', instructions: 'Be brief' });
    const input = [
      { role: 'user', content: [{ type: 'input_text', text: 'first' }] },
      { role: 'assistant', content: 'ok' },
      { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'second' }] },
    ];
    expect((await send(gateway, '/v1/responses', { model: 'gpt-4o-mini', input }, toOpenAI([prefix.id]))).status).toBe(200);
    const sent = lastUpstream().json as { input: Array<{ content: unknown }> };
    expect(sent.input[0].content).toEqual([{ type: 'input_text', text: 'first' }]);
    expect(sent.input[2].content).toEqual([{ type: 'input_text', text: '[p] second' }]);
  });

  it('denies a blocked built-in tool type with 400 guardrail_violation', async () => {
    const before = upstream.requests.length;
    const denied = await send(gateway, '/v1/responses', { model: 'gpt-4o-mini', input: 'Hi', tools: [{ type: 'web_search' }] }, toOpenAI([noWebSearch.id]));
    expectDenied(denied, 'guardrail_tool_type_blocked', noWebSearch, 'tools[0].type');
    expect(upstream.requests.length).toBe(before);
  });
});

describe('tool rules read every shape and every version of a tool', () => {
  let noShell: GuardrailBody;
  let onlyLookup: GuardrailBody;
  let noComputer: GuardrailBody;
  beforeAll(async () => {
    noShell = await createGuardrail(gateway, { name: 'no shell fn', type: 'request_params_check', config: { tools: { blockedFunctionNames: ['run_shell'] } } });
    onlyLookup = await createGuardrail(gateway, { name: 'only lookup', type: 'request_params_check', config: { tools: { allowedFunctionNames: ['lookup'] } } });
    noComputer = await createGuardrail(gateway, { name: 'no computer', type: 'request_params_check', config: { tools: { blockedTypes: ['computer*', 'bash', 'text_editor'] } } });
  });

  it('a Responses tool written in chat shape is checked by its function.name', async () => {
    const before = upstream.requests.length;
    const chatShaped = { type: 'function', function: { name: 'run_shell', parameters: { type: 'object' } } };
    expectDenied(await send(gateway, '/v1/responses', { model: 'gpt-4o-mini', input: 'Hi', tools: [chatShaped] }, toOpenAI([noShell.id])), 'guardrail_function_name_blocked', noShell, 'tools[0]');
    // Two names on one tool: an allow list needs both to be allowed.
    const twoNames = { type: 'function', name: 'lookup', function: { name: 'run_shell' } };
    expectDenied(await send(gateway, '/v1/responses', { model: 'gpt-4o-mini', input: 'Hi', tools: [twoNames] }, toOpenAI([onlyLookup.id])), 'guardrail_function_name_not_allowed', onlyLookup, 'tools[0]');
    // A Messages tool given `type: "function"` is a client tool too.
    const messagesTool = { type: 'function', name: 'run_shell', input_schema: { type: 'object' } };
    const messages = { model: 'claude-sonnet-4-5', max_tokens: 10, messages: [{ role: 'user', content: 'Hi' }], tools: [messagesTool] };
    expectMessagesDenied(await send(gateway, '/v1/messages', messages, anthropic([noShell.id])), noShell, 'function "run_shell" is blocked');
    expect(upstream.requests.length).toBe(before);
  });

  it('a type list matches the versions and previews of a built-in tool', async () => {
    const before = upstream.requests.length;
    for (const type of ['web_search', 'web_search_preview', 'web_search_preview_2025_03_11', 'web_search_2025_08_26']) {
      expectDenied(await send(gateway, '/v1/responses', { model: 'gpt-4o-mini', input: 'Hi', tools: [{ type }] }, toOpenAI([noWebSearch.id])), 'guardrail_tool_type_blocked', noWebSearch, 'tools[0].type');
    }
    expectDenied(await send(gateway, '/v1/responses', { model: 'gpt-4o-mini', input: 'Hi', tools: [{ type: 'computer_use_preview' }] }, toOpenAI([noComputer.id])), 'guardrail_tool_type_blocked', noComputer);
    const server = (type: string, name: string) => ({ model: 'claude-sonnet-4-5', max_tokens: 10, messages: [{ role: 'user', content: 'Hi' }], tools: [{ type, name }] });
    expectMessagesDenied(await send(gateway, '/v1/messages', server('web_search_20250305', 'web_search'), anthropic([noWebSearch.id])), noWebSearch, 'tool type "web_search_20250305" is blocked');
    expectMessagesDenied(await send(gateway, '/v1/messages', server('bash_20250124', 'bash'), anthropic([noComputer.id])), noComputer, 'tool type "bash_20250124" is blocked');
    expectMessagesDenied(await send(gateway, '/v1/messages', server('text_editor_20250429', 'str_replace_based_edit_tool'), anthropic([noComputer.id])), noComputer, 'tool type "text_editor_20250429" is blocked');
    expectMessagesDenied(await send(gateway, '/v1/messages', server('computer_20250124', 'computer'), anthropic([noComputer.id])), noComputer, 'tool type "computer_20250124" is blocked');
    expect(upstream.requests.length).toBe(before);
    // Another tool whose name merely starts the same way is not in the family.
    expect((await send(gateway, '/v1/responses', { model: 'gpt-4o-mini', input: 'Hi', tools: [{ type: 'web_search_tool_of_mine' }] }, toOpenAI([noWebSearch.id]))).status).toBe(200);
  });
});

describe('guardrails on /v1/messages', () => {
  it('prefixes the last user message as the Anthropic provider receives it; system stays', async () => {
    const body = { model: 'claude-sonnet-4-5', max_tokens: 10, system: 'Be brief', messages: [{ role: 'user', content: [{ type: 'text', text: 'Hi' }] }] };
    expect((await send(gateway, '/v1/messages', body, anthropic([prefix.id]))).status).toBe(200);
    expect(lastUpstream().path).toMatch(/\/messages$/);
    expect(lastUpstream().json).toMatchObject({ system: 'Be brief', messages: [{ role: 'user', content: [{ type: 'text', text: '[p] Hi' }] }] });
  });

  it('denies a client tool where no tool is allowed, and forwards nothing', async () => {
    const before = upstream.requests.length;
    const body = { model: 'claude-sonnet-4-5', max_tokens: 10, messages: [{ role: 'user', content: 'Hi' }], tools: [{ name: 'get_weather', input_schema: { type: 'object' } }] };
    const denied = await send(gateway, '/v1/messages', body, anthropic([noTools.id]));
    expect(denied.status).toBe(400);
    // /v1/messages answers errors in Anthropic's shape; the message still names the guardrail.
    expect(JSON.stringify(denied.body)).toContain(noTools.id);
    expect(JSON.stringify(denied.body)).toContain('no tools');
    expect(upstream.requests.length).toBe(before);
  });
});

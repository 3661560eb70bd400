import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { drainAllBackgroundWork } from '../../../shared/observability/background.js';
import type { TestGateway } from '../../support/gateway.js';
import { useGatewayWithUpstream } from '../../support/harness.js';
import { openAIMockHandler } from '../../support/mock-openai.js';
import type { MockUpstream } from '../../support/mock-upstream.js';
import { createGuardrail, expectDenied, mockTarget, send, toMock, type GuardrailBody } from './guardrails-support.js';

// The inbound dialects: /v1/responses and /v1/messages bodies are guarded in their own shape, and the provider
// receives the prefix where the dialect keeps the user's input.
let gateway: TestGateway;
let upstream: MockUpstream;
let prefix: GuardrailBody;
let noWebSearch: GuardrailBody;
let noTools: GuardrailBody;
useGatewayWithUpstream(openAIMockHandler(), (started) => ({ gateway, upstream } = started));
afterAll(() => drainAllBackgroundWork());
beforeAll(async () => {
  prefix = await createGuardrail(gateway, { name: 'prefix', type: 'add_prefix', config: { prefix: '[p] ' } });
  noWebSearch = await createGuardrail(gateway, { name: 'no web search', type: 'request_params_check', config: { tools: { blockedTypes: ['web_search'] } } });
  noTools = await createGuardrail(gateway, { name: 'no tools', type: 'request_params_check', config: { tools: { allowedTypes: [] } } });
});

const openai = (ids: string[]) => toMock(upstream, { ...mockTarget(upstream), input_guardrails: ids });
const anthropic = (ids: string[]) => toMock(upstream, { provider: 'anthropic', api_key: 'sk-ant', custom_host: upstream.url, input_guardrails: ids });
const lastUpstream = () => upstream.requests.at(-1)!;

describe('guardrails on /v1/responses', () => {
  it('prefixes a string input and the last user message item; instructions stay as they are', async () => {
    expect((await send(gateway, '/v1/responses', { model: 'gpt-4o-mini', input: 'Hi', instructions: 'Be brief' }, openai([prefix.id]))).status).toBe(200);
    expect(lastUpstream().json).toMatchObject({ input: '[p] Hi', instructions: 'Be brief' });
    const input = [
      { role: 'user', content: [{ type: 'input_text', text: 'first' }] },
      { role: 'assistant', content: 'ok' },
      { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'second' }] },
    ];
    expect((await send(gateway, '/v1/responses', { model: 'gpt-4o-mini', input }, openai([prefix.id]))).status).toBe(200);
    const sent = lastUpstream().json as { input: Array<{ content: unknown }> };
    expect(sent.input[0].content).toEqual([{ type: 'input_text', text: 'first' }]);
    expect(sent.input[2].content).toEqual([{ type: 'input_text', text: '[p] second' }]);
  });

  it('denies a blocked built-in tool type with 400 guardrail_violation', async () => {
    const before = upstream.requests.length;
    const denied = await send(gateway, '/v1/responses', { model: 'gpt-4o-mini', input: 'Hi', tools: [{ type: 'web_search' }] }, openai([noWebSearch.id]));
    expectDenied(denied, 'guardrail_tool_type_blocked', noWebSearch, 'tools[0].type');
    expect(upstream.requests.length).toBe(before);
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

import { describe, expect, it } from 'vitest';
import { addPrefix } from '../../../shared/guardrails/add-prefix.js';
import { checkRequestType } from '../../../shared/guardrails/allowed-request-types.js';
import { runGuardrails } from '../../../shared/guardrails/run.js';
import type { Guardrail } from '../../../shared/guardrails/schemas.js';

function prefixed(endpoint: string, body: Record<string, unknown>, position?: 'first_user' | 'last_user') {
  const verdict = addPrefix({ prefix: 'P: ', position }, endpoint, body);
  return verdict.action === 'transform' ? verdict.body : verdict.action;
}

const conversation = [
  { role: 'system', content: 'Be brief.' },
  { role: 'user', content: 'first' },
  { role: 'assistant', content: 'ok' },
  { role: 'user', content: [{ type: 'image_url', image_url: { url: 'https://x/y.png' } }, { type: 'text', text: 'second' }] },
];

describe('add_prefix', () => {
  it('chat: the last user message by default, its first text part; first_user on request', () => {
    const body = { model: 'm', messages: conversation };
    expect((prefixed('chat', body) as { messages: unknown[] }).messages[3]).toEqual({ role: 'user', content: [conversation[3].content[0], { type: 'text', text: 'P: second' }] });
    expect((prefixed('chat', body, 'first_user') as { messages: unknown[] }).messages[1]).toEqual({ role: 'user', content: 'P: first' });
    // The client's body is never changed in place.
    expect(conversation[1].content).toBe('first');
  });

  it('chat: inserts a text part when the user message has none, and skips a request without user messages', () => {
    const body = { model: 'm', messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'u' } }] }] };
    expect((prefixed('chat', body) as { messages: Array<{ content: unknown[] }> }).messages[0].content[0]).toEqual({ type: 'text', text: 'P: ' });
    expect(prefixed('chat', { model: 'm', messages: [{ role: 'system', content: 's' }] })).toBe('skip');
  });

  it('completions: a string prompt and every string of a prompt array; token prompts are left alone', () => {
    expect(prefixed('completions', { model: 'm', prompt: 'Say hi' })).toEqual({ model: 'm', prompt: 'P: Say hi' });
    expect(prefixed('completions', { model: 'm', prompt: ['a', 'b'] })).toEqual({ model: 'm', prompt: ['P: a', 'P: b'] });
    expect(prefixed('completions', { model: 'm', prompt: [1, 2, 3] })).toBe('skip');
  });

  it('responses: a string input, or the user message item with input_text parts', () => {
    expect(prefixed('responses', { model: 'm', input: 'Hi', instructions: 'Be nice' })).toEqual({ model: 'm', input: 'P: Hi', instructions: 'Be nice' });
    const input = [
      { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'one' }] },
      { type: 'function_call_output', call_id: 'c', output: '{}' },
      { role: 'user', content: 'two' },
    ];
    expect((prefixed('responses', { model: 'm', input }) as { input: unknown[] }).input[2]).toEqual({ role: 'user', content: 'P: two' });
    expect((prefixed('responses', { model: 'm', input }, 'first_user') as { input: unknown[] }).input[0]).toEqual({ type: 'message', role: 'user', content: [{ type: 'input_text', text: 'P: one' }] });
  });

  it('messages: string or text block; after tool results when there is no text block', () => {
    const body = {
      model: 'claude',
      max_tokens: 5,
      system: 'sys',
      messages: [
        { role: 'user', content: 'hello' },
        { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'f', input: {} }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: '42' }] },
      ],
    };
    const result = prefixed('messages', body) as { messages: Array<{ content: unknown }>; system: string };
    expect(result.messages[2].content).toEqual([{ type: 'tool_result', tool_use_id: 't1', content: '42' }, { type: 'text', text: 'P: ' }]);
    expect(result.system).toBe('sys');
    expect((prefixed('messages', body, 'first_user') as { messages: Array<{ content: unknown }> }).messages[0].content).toBe('P: hello');
  });

  it('embeddings are not a prompt: left unchanged', () => {
    expect(prefixed('embeddings', { model: 'm', input: 'x' })).toBe('skip');
  });
});

describe('allowed_request_types', () => {
  it('allow lets only the listed endpoints through; block refuses them', () => {
    expect(checkRequestType({ mode: 'allow', endpoints: ['chat/completions'] }, 'chat').action).toBe('pass');
    expect(checkRequestType({ mode: 'allow', endpoints: ['chat/completions'] }, 'embeddings')).toMatchObject({ action: 'deny', violation: { code: 'guardrail_request_type_not_allowed' } });
    expect(checkRequestType({ mode: 'block', endpoints: ['messages', 'responses'] }, 'responses')).toMatchObject({ action: 'deny', violation: { code: 'guardrail_request_type_blocked' } });
    expect(checkRequestType({ mode: 'block', endpoints: ['messages'] }, 'completions').action).toBe('pass');
  });
});

describe('runGuardrails', () => {
  const guardrail = (id: string, definition: Pick<Guardrail, 'type' | 'config'>): Guardrail => ({ id, name: id, version: 1, ...definition }) as Guardrail;

  it('runs in order on the body the previous ones left, and stops at the first denial', () => {
    const prefix = guardrail('grd-p', { type: 'add_prefix', config: { prefix: '[safe] ' } });
    const noHello = guardrail('grd-v', { type: 'request_params_check', config: { params: { blockedKeys: ['temperature'] } } });
    const never = guardrail('grd-n', { type: 'add_prefix', config: { prefix: 'never ' } });
    const run = runGuardrails([prefix, noHello, never], 'chat', { model: 'm', messages: [{ role: 'user', content: 'Hi' }], temperature: 1 });
    expect(run.checks.map((check) => [check.id, check.action])).toEqual([
      ['grd-p', 'transform'],
      ['grd-v', 'deny'],
    ]);
    expect(run.denied?.guardrail.id).toBe('grd-v');
    const passed = runGuardrails([prefix, never], 'chat', { model: 'm', messages: [{ role: 'user', content: 'Hi' }] });
    expect(passed.body.messages).toEqual([{ role: 'user', content: 'never [safe] Hi' }]);
  });
});

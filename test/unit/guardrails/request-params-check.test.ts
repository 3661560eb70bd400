import { describe, expect, it } from 'vitest';
import { checkRequestParams } from '../../../shared/guardrails/request-params-check.js';
import type { RequestParamsCheckConfig } from '../../../shared/guardrails/schemas.js';

const weather = { type: 'function', function: { name: 'get_weather', parameters: { type: 'object' } } };
const shell = { type: 'function', function: { name: 'run_shell', parameters: { type: 'object' } } };
const chat = (extra: Record<string, unknown> = {}) => ({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Hi' }], ...extra });

function verdict(config: RequestParamsCheckConfig, body: Record<string, unknown>, endpoint = 'chat') {
  const result = checkRequestParams(config, endpoint, body);
  return result.action === 'deny' ? { code: result.violation.code, param: result.violation.param } : result.action;
}

describe('request_params_check: tools', () => {
  it('blocks a tool type and allows only listed types', () => {
    expect(verdict({ tools: { blockedTypes: ['function'] } }, chat({ tools: [weather] }))).toEqual({ code: 'guardrail_tool_type_blocked', param: 'tools[0].type' });
    expect(verdict({ tools: { allowedTypes: ['custom'] } }, chat({ tools: [weather] }))).toEqual({ code: 'guardrail_tool_type_not_allowed', param: 'tools[0].type' });
    expect(verdict({ tools: { allowedTypes: ['function'] } }, chat({ tools: [weather, shell] }))).toBe('pass');
  });

  it('blocks function names and allows only listed ones (exact, case-sensitive)', () => {
    expect(verdict({ tools: { blockedFunctionNames: ['run_shell'] } }, chat({ tools: [weather, shell] }))).toEqual({ code: 'guardrail_function_name_blocked', param: 'tools[1]' });
    expect(verdict({ tools: { blockedFunctionNames: ['RUN_SHELL'] } }, chat({ tools: [shell] }))).toBe('pass');
    expect(verdict({ tools: { allowedFunctionNames: ['get_weather'] } }, chat({ tools: [weather, shell] }))).toEqual({ code: 'guardrail_function_name_not_allowed', param: 'tools[1]' });
    expect(verdict({ tools: { allowedFunctionNames: ['get_weather'] } }, chat({ functions: [{ name: 'run_shell' }] }))).toEqual({ code: 'guardrail_function_name_not_allowed', param: 'functions[0]' });
  });

  it('with both lists a tool must be allowed and not blocked (the block list wins)', () => {
    const config = { tools: { allowedFunctionNames: ['get_weather', 'run_shell'], blockedFunctionNames: ['run_shell'] } };
    expect(verdict(config, chat({ tools: [weather] }))).toBe('pass');
    expect(verdict(config, chat({ tools: [shell] }))).toEqual({ code: 'guardrail_function_name_blocked', param: 'tools[0]' });
  });

  it('an empty allow list allows no tool at all; absent lists constrain nothing; no tools always passes', () => {
    expect(verdict({ tools: { allowedTypes: [] } }, chat({ tools: [weather] }))).toEqual({ code: 'guardrail_tool_type_not_allowed', param: 'tools[0].type' });
    expect(verdict({ tools: { allowedTypes: [] } }, chat())).toBe('pass');
    expect(verdict({ tools: {} }, chat({ tools: [weather] }))).toBe('pass');
  });

  it('reads Responses tools: built-in types have no function name', () => {
    const body = { model: 'gpt-4o', input: 'Hi', tools: [{ type: 'web_search' }, { type: 'function', name: 'run_shell', parameters: {} }] };
    expect(verdict({ tools: { blockedTypes: ['web_search'] } }, body, 'responses')).toEqual({ code: 'guardrail_tool_type_blocked', param: 'tools[0].type' });
    expect(verdict({ tools: { allowedFunctionNames: ['get_weather'] } }, body, 'responses')).toEqual({ code: 'guardrail_function_name_not_allowed', param: 'tools[1]' });
    expect(verdict({ tools: { allowedFunctionNames: ['run_shell'] } }, body, 'responses')).toBe('pass');
  });

  it('reads Anthropic Messages tools: client tools are functions, server tools keep their type', () => {
    const body = { model: 'claude', max_tokens: 10, messages: [], tools: [{ name: 'get_weather', input_schema: { type: 'object' } }, { type: 'web_search_20250305', name: 'web_search' }] };
    expect(verdict({ tools: { allowedTypes: ['function'] } }, body, 'messages')).toEqual({ code: 'guardrail_tool_type_not_allowed', param: 'tools[1].type' });
    expect(verdict({ tools: { blockedFunctionNames: ['web_search'] } }, body, 'messages')).toBe('pass');
    expect(verdict({ tools: { blockedFunctionNames: ['get_weather'] } }, body, 'messages')).toEqual({ code: 'guardrail_function_name_blocked', param: 'tools[0]' });
  });
});

describe('request_params_check: parameter keys', () => {
  it('blocks a key whatever its value, null included, and nested keys by dotted path', () => {
    expect(verdict({ params: { blockedKeys: ['logit_bias'] } }, chat({ logit_bias: null }))).toEqual({ code: 'guardrail_param_blocked', param: 'logit_bias' });
    expect(verdict({ params: { blockedKeys: ['stream_options.include_usage'] } }, chat({ stream_options: { include_usage: false } }))).toEqual({ code: 'guardrail_param_blocked', param: 'stream_options.include_usage' });
    expect(verdict({ params: { blockedKeys: ['stream_options.include_usage'] } }, chat({ stream_options: {} }))).toBe('pass');
  });

  it('allowedKeys is the complete list of top-level keys (model and messages included)', () => {
    expect(verdict({ params: { allowedKeys: ['model', 'messages', 'temperature'] } }, chat({ temperature: 0.2 }))).toBe('pass');
    expect(verdict({ params: { allowedKeys: ['messages', 'temperature'] } }, chat())).toEqual({ code: 'guardrail_param_not_allowed', param: 'model' });
    expect(verdict({ params: { allowedKeys: ['model', 'messages'], blockedKeys: ['messages'] } }, chat())).toEqual({ code: 'guardrail_param_blocked', param: 'messages' });
  });
});

describe('request_params_check: values', () => {
  it('compares without type coercion', () => {
    const config = { params: { values: { n: { allowedValues: [1] }, stream: { blockedValues: [true] } } } };
    expect(verdict(config, chat({ n: 1 }))).toBe('pass');
    expect(verdict(config, chat({ n: '1' }))).toEqual({ code: 'guardrail_param_value_not_allowed', param: 'n' });
    expect(verdict(config, chat({ stream: 'true' }))).toBe('pass');
    expect(verdict(config, chat({ stream: true }))).toEqual({ code: 'guardrail_param_value_blocked', param: 'stream' });
    expect(verdict({ params: { values: { user: { blockedValues: [null] } } } }, chat({ user: null }))).toEqual({ code: 'guardrail_param_value_blocked', param: 'user' });
  });

  it('does not check an absent key', () => {
    expect(verdict({ params: { values: { temperature: { allowedValues: [0] } } } }, chat())).toBe('pass');
  });

  it('checks array values element by element: any blocked element denies, every element must be allowed', () => {
    const config = { params: { values: { modalities: { allowedValues: ['text', 'audio'], blockedValues: ['image'] } } } };
    expect(verdict(config, chat({ modalities: ['text'] }))).toBe('pass');
    expect(verdict(config, chat({ modalities: ['text', 'audio'] }))).toBe('pass');
    expect(verdict(config, chat({ modalities: ['text', 'video'] }))).toEqual({ code: 'guardrail_param_value_not_allowed', param: 'modalities' });
    expect(verdict(config, chat({ modalities: ['image', 'text'] }))).toEqual({ code: 'guardrail_param_value_blocked', param: 'modalities' });
    expect(verdict(config, chat({ modalities: [] }))).toBe('pass');
    // A whole array as an entry matches an equal array.
    expect(verdict({ params: { values: { stop: { blockedValues: [['END', 'STOP']] } } } }, chat({ stop: ['END', 'STOP'] }))).toEqual({ code: 'guardrail_param_value_blocked', param: 'stop' });
  });

  it('compares objects deeply and reaches nested values by dotted path', () => {
    expect(verdict({ params: { values: { response_format: { allowedValues: [{ type: 'text' }] } } } }, chat({ response_format: { type: 'json_object' } }))).toEqual({
      code: 'guardrail_param_value_not_allowed',
      param: 'response_format',
    });
    expect(verdict({ params: { values: { 'reasoning.effort': { allowedValues: ['low'] } } } }, { model: 'o3', input: 'Hi', reasoning: { effort: 'high' } }, 'responses')).toEqual({
      code: 'guardrail_param_value_not_allowed',
      param: 'reasoning.effort',
    });
    expect(verdict({ params: { values: { 'reasoning.effort': { allowedValues: ['low'] } } } }, { model: 'o3', input: 'Hi', reasoning: { effort: 'low', summary: 'auto' } }, 'responses')).toBe('pass');
  });

  it('runs tools before keys before values and stops at the first failure', () => {
    const config = { tools: { blockedTypes: ['function'] }, params: { blockedKeys: ['temperature'] } };
    expect(verdict(config, chat({ tools: [weather], temperature: 1 }))).toEqual({ code: 'guardrail_tool_type_blocked', param: 'tools[0].type' });
  });
});

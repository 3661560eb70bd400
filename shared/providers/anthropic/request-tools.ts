import { badRequest } from '../../http/errors.js';
import { isRecord } from '../common/json-guards.js';
import type { OpenAIBody } from '../types.js';

export interface AnthropicToolFields {
  tools?: Array<Record<string, unknown>>;
  tool_choice?: Record<string, unknown>;
}

/** Whether the request uses the legacy `functions` API, whose answer is a single `function_call`. */
export function usesLegacyFunctions(body: OpenAIBody): boolean {
  return body.functions !== undefined && body.functions !== null && (body.tools === undefined || body.tools === null);
}

/**
 * `tools` (or legacy `functions`) → Anthropic `tools`; `tool_choice` (or `function_call`) → `tool_choice`:
 * auto → auto, none → none, required → any, a named function → tool. `parallel_tool_calls: false` becomes
 * `disable_parallel_tool_use`; the legacy API always gets it, since it can carry only one call.
 */
export function toAnthropicTools(body: OpenAIBody): AnthropicToolFields {
  const hasTools = body.tools !== undefined && body.tools !== null;
  const hasFunctions = body.functions !== undefined && body.functions !== null;
  if (hasTools && hasFunctions) throw badRequest('invalid_tools', 'Send either `tools` or the legacy `functions`, not both', 'functions');
  const legacy = usesLegacyFunctions(body);
  const tools = legacy ? declareFunctions(body.functions) : declareTools(body.tools);
  const choiceParam = legacy ? 'function_call' : 'tool_choice';
  const choice = legacy ? body.function_call : body.tool_choice;

  const fields: AnthropicToolFields = {};
  if (tools.length > 0) fields.tools = tools;
  let toolChoice = choice === undefined || choice === null ? undefined : translateChoice(choice, choiceParam);
  if (tools.length === 0) {
    if (toolChoice && toolChoice.type !== 'auto' && toolChoice.type !== 'none') {
      throw badRequest('invalid_tool_choice', `${choiceParam} asks for a tool call but the request declares no tools`, choiceParam);
    }
    return fields;
  }
  const singleCall = legacy || body.parallel_tool_calls === false;
  if (singleCall && toolChoice?.type !== 'none') toolChoice = { ...(toolChoice ?? { type: 'auto' }), disable_parallel_tool_use: true };
  if (toolChoice) fields.tool_choice = toolChoice;
  return fields;
}

function declareTools(value: unknown): Array<Record<string, unknown>> {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw badRequest('invalid_tools', '`tools` must be an array', 'tools');
  return value.map((tool: unknown, index) => {
    const param = `tools[${index}]`;
    if (!isRecord(tool)) throw badRequest('invalid_tools', `${param} must be an object`, param);
    if (tool.type !== 'function') {
      throw badRequest('unsupported_tool_type', `${param}.type '${String(tool.type)}' is not supported by Anthropic; only function tools are`, `${param}.type`);
    }
    const declared = declaration(tool.function, `${param}.function`);
    if (isRecord(tool.cache_control)) declared.cache_control = tool.cache_control;
    return declared;
  });
}

function declareFunctions(value: unknown): Array<Record<string, unknown>> {
  if (!Array.isArray(value)) throw badRequest('invalid_tools', '`functions` must be an array', 'functions');
  return value.map((fn: unknown, index) => declaration(fn, `functions[${index}]`));
}

function declaration(fn: unknown, param: string): Record<string, unknown> {
  if (!isRecord(fn) || typeof fn.name !== 'string' || fn.name === '') {
    throw badRequest('invalid_tools', `${param} must be an object with a non-empty string name`, `${param}.name`);
  }
  if (fn.parameters !== undefined && !isRecord(fn.parameters)) {
    throw badRequest('invalid_tools', `${param}.parameters must be a JSON Schema object`, `${param}.parameters`);
  }
  const declared: Record<string, unknown> = { name: fn.name };
  if (typeof fn.description === 'string' && fn.description !== '') declared.description = fn.description;
  // Anthropic requires an input schema; a function without parameters takes an empty object.
  declared.input_schema = fn.parameters ?? { type: 'object', properties: {} };
  if (typeof fn.strict === 'boolean') declared.strict = fn.strict;
  return declared;
}

function translateChoice(choice: unknown, param: string): Record<string, unknown> {
  if (choice === 'auto') return { type: 'auto' };
  if (choice === 'none') return { type: 'none' };
  if (choice === 'required') return { type: 'any' };
  // tool_choice: {type:'function', function:{name}}; function_call: {name}.
  const name = isRecord(choice) ? (isRecord(choice.function) ? choice.function.name : choice.name) : undefined;
  if (isRecord(choice) && (choice.type === 'function' || choice.type === undefined) && typeof name === 'string' && name !== '') {
    return { type: 'tool', name };
  }
  throw badRequest('invalid_tool_choice', `${param} must be "auto", "none", "required" or a named function`, param);
}

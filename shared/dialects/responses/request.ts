import { badRequest } from '../../http/errors.js';
import { isRecord } from '../../providers/common/json-guards.js';
import { refuseOrRecordDrop } from '../../providers/common/unsupported-params.js';
import type { OpenAIBody } from '../../providers/types.js';
import type { UnsupportedParamRule } from '../types.js';
import { checkBody, responsesRequestSchema } from '../schemas.js';
import { chatName, chatToolsFrom, webSearchOptionsFrom } from './tools.js';

type Json = Record<string, unknown>;

/** Input item types gw can translate for a non-OpenAI target. */
const TRANSLATABLE_ITEMS = new Set(['message', 'function_call', 'function_call_output', 'custom_tool_call', 'custom_tool_call_output', 'reasoning', 'web_search_call']);

/** Top-level Responses fields the translation carries over (`previous_response_id` was expanded into `input`). */
const TRANSLATED_FIELDS = new Set([
  'model', 'input', 'instructions', 'previous_response_id', 'stream', 'tools', 'tool_choice', 'parallel_tool_calls', 'text', 'reasoning',
  'max_output_tokens', 'temperature', 'top_p', 'user', 'safety_identifier', 'background',
]);

/**
 * Fields that concern gw or OpenAI's side only and ask nothing of another provider, with the values that do so:
 * `store` and `metadata` are gw's (it stores the response itself), `include` asks for extra output data (Codex asks
 * for `reasoning.encrypted_content`, which a translated answer simply has none of), `prompt_cache_key` is a cache
 * hint, `stream_options` tunes OpenAI's stream framing, `client_metadata` describes the client (Codex sends its
 * installation and session ids). Any other field, or these
 * with a value that asks for more (`truncation: "auto"`, a `service_tier` other than the default), follows the
 * unsupported-parameter rule.
 */
const NO_EFFECT_ELSEWHERE: Readonly<Record<string, (value: unknown) => boolean>> = {
  store: () => true,
  metadata: () => true,
  include: () => true,
  prompt_cache_key: () => true,
  stream_options: () => true,
  client_metadata: () => true,
  truncation: (value) => value === 'disabled',
  service_tier: (value) => value === 'auto' || value === 'default',
};

/** Checks the shape of a Responses body when it arrives. */
export function validateResponsesBody(body: OpenAIBody): void {
  checkBody(responsesRequestSchema, body);
  if (body.conversation !== undefined) throw badRequest('unsupported_parameter', '`conversation` is not supported by gw; continue with `previous_response_id`', 'conversation');
}

/** `input` as a list of items (a string is one user message). */
export function inputItems(input: unknown): Json[] {
  if (input === undefined) return [];
  if (typeof input === 'string') return [{ type: 'message', role: 'user', content: input }];
  return (input as unknown[]).filter(isRecord);
}

/**
 * A Responses body → the canonical chat body. `instructions` become the system message; message items,
 * `function_call` and `function_call_output` items become chat messages (consecutive assistant output joins
 * one assistant turn); function, custom and namespaced tools become chat tools (./tools.ts); `text.format` becomes
 * `response_format`. Built-in tools (web search, file search, …) run only on OpenAI: for any other target they
 * follow the unsupported-parameter rule like a field. A field
 * with no chat equivalent follows the unsupported-parameter rule (a 400 naming it, or dropped and reported).
 */
export function responsesToCanonical(body: OpenAIBody, provider: string, rule: UnsupportedParamRule = {}): OpenAIBody {
  const unsupported = Object.keys(body).filter((name) => body[name] !== undefined && body[name] !== null && !TRANSLATED_FIELDS.has(name) && !NO_EFFECT_ELSEWHERE[name]?.(body[name]));
  refuseOrRecordDrop(rule, `provider '${provider}' (translated from the Responses API)`, unsupported);
  const messages: Json[] = [];
  if (typeof body.instructions === 'string' && body.instructions !== '') messages.push({ role: 'system', content: body.instructions });
  inputItems(body.input).forEach((item, index) => appendItem(messages, item, index));
  if (messages.length === 0) throw badRequest('missing_input', '`input` is empty', 'input');

  const chat: OpenAIBody = { model: body.model, messages };
  for (const name of ['temperature', 'top_p', 'stream', 'parallel_tool_calls', 'user', 'safety_identifier'] as const) {
    if (body[name] !== undefined && body[name] !== null) chat[name] = body[name];
  }
  if (typeof body.max_output_tokens === 'number') chat.max_completion_tokens = body.max_output_tokens;
  if (isRecord(body.reasoning) && typeof body.reasoning.effort === 'string') chat.reasoning_effort = body.reasoning.effort;
  const tools = Array.isArray(body.tools) ? chatToolsFrom(body.tools, provider, body.model, rule) : [];
  if (tools.length > 0) chat.tools = tools;
  const webSearch = Array.isArray(body.tools) ? webSearchOptionsFrom(body.tools, provider, body.model) : undefined;
  if (webSearch) chat.web_search_options = webSearch;
  if (body.tool_choice !== undefined) chat.tool_choice = toolChoice(body.tool_choice);
  const format = isRecord(body.text) && isRecord(body.text.format) ? body.text.format : undefined;
  if (format) chat.response_format = responseFormat(format);
  return chat;
}

function appendItem(messages: Json[], item: Json, index: number): void {
  const type = item.type ?? (item.role !== undefined ? 'message' : undefined);
  if (typeof type !== 'string' || !TRANSLATABLE_ITEMS.has(type)) {
    throw badRequest('unsupported_input_item', `input[${index}]: item type '${String(type)}' can only be sent to an OpenAI target`, `input.${index}.type`);
  }
  const last = messages.at(-1);
  if (type === 'message') {
    const role = item.role === 'developer' ? 'system' : item.role;
    if (role !== 'user' && role !== 'assistant' && role !== 'system') throw badRequest('invalid_input', `input[${index}].role must be user, assistant, system or developer`, `input.${index}.role`);
    const content = messageContent(item.content, index);
    if (role === 'assistant' && last?.role === 'assistant' && last.content === null) last.content = typeof content === 'string' ? content : textOf(content);
    else messages.push({ role, content: role === 'assistant' && typeof content !== 'string' ? textOf(content) : content });
  } else if (type === 'function_call' || type === 'custom_tool_call') {
    // A custom tool's string travels as the `input` argument of the function it became (./tools.ts).
    const args = type === 'custom_tool_call' ? JSON.stringify({ input: typeof item.input === 'string' ? item.input : '' }) : typeof item.arguments === 'string' ? item.arguments : '{}';
    const call = { id: item.call_id, type: 'function', function: { name: chatName(String(item.name), item.namespace), arguments: args } };
    if (last?.role === 'assistant') last.tool_calls = [...((last.tool_calls as Json[] | undefined) ?? []), call];
    else messages.push({ role: 'assistant', content: null, tool_calls: [call] });
  } else if (type === 'function_call_output' || type === 'custom_tool_call_output') {
    messages.push({ role: 'tool', tool_call_id: item.call_id, content: typeof item.output === 'string' ? item.output : textOf(messageContent(item.output, index)) });
  }
  // Reasoning items (encrypted or summarised) belong to the model that wrote them: another model cannot read them,
  // so they are left out. A `web_search_call` only records a search OpenAI ran; its results are in the messages.
}

function messageContent(content: unknown, index: number): string | Json[] {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) throw badRequest('invalid_input', `input[${index}].content must be a string or an array of parts`, `input.${index}.content`);
  return content.filter(isRecord).map((part, partIndex) => contentPart(part, `input.${index}.content.${partIndex}`));
}

function contentPart(part: Json, param: string): Json {
  switch (part.type) {
    case 'input_text':
    case 'output_text':
    case 'text':
      return { type: 'text', text: String(part.text ?? '') };
    case 'input_image':
      if (typeof part.image_url !== 'string') throw badRequest('unsupported_content', `${param}: images by file_id can only be sent to an OpenAI target`, param);
      return { type: 'image_url', image_url: { url: part.image_url, ...(typeof part.detail === 'string' ? { detail: part.detail } : {}) } };
    case 'input_file':
      if (typeof part.file_data !== 'string') throw badRequest('unsupported_content', `${param}: files by file_id or URL can only be sent to an OpenAI target`, param);
      return { type: 'file', file: { file_data: part.file_data, filename: part.filename ?? 'file.pdf' } };
    case 'refusal':
      return { type: 'text', text: String(part.refusal ?? '') };
    default:
      throw badRequest('unsupported_content', `${param}: content type '${String(part.type)}' cannot be translated for this target`, param);
  }
}

function textOf(content: string | Json[]): string {
  return typeof content === 'string' ? content : content.map((part) => (typeof part.text === 'string' ? part.text : '')).join('');
}

function toolChoice(choice: unknown): unknown {
  if (choice === 'auto' || choice === 'none' || choice === 'required') return choice;
  if (isRecord(choice) && (choice.type === 'function' || choice.type === 'custom') && typeof choice.name === 'string') {
    return { type: 'function', function: { name: chatName(choice.name, choice.namespace) } };
  }
  throw badRequest('unsupported_tool_choice', '`tool_choice` must be auto, none, required or a function; built-in tool choices need an OpenAI target', 'tool_choice');
}

function responseFormat(format: Json): Json {
  if (format.type === 'text') return { type: 'text' };
  if (format.type === 'json_object') return { type: 'json_object' };
  if (format.type === 'json_schema') {
    const schema: Json = { name: format.name ?? 'response', schema: format.schema };
    if (typeof format.strict === 'boolean') schema.strict = format.strict;
    if (typeof format.description === 'string') schema.description = format.description;
    return { type: 'json_schema', json_schema: schema };
  }
  throw badRequest('invalid_parameter', `\`text.format.type\` '${String(format.type)}' is not supported`, 'text.format.type');
}

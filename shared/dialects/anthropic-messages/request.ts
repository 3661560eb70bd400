import { badRequest } from '../../http/errors.js';
import { isRecord } from '../../providers/common/json-guards.js';
import { recordDropped, refuseOrRecordDrop } from '../../providers/common/unsupported-params.js';
import type { OpenAIBody } from '../../providers/types.js';
import { checkBody, messagesRequestSchema } from '../schemas.js';
import type { UnsupportedParamRule } from '../types.js';

type Json = Record<string, unknown>;

/** Checks a Messages body when it arrives, so a malformed request is a 400 whichever target would answer. */
export function validateMessagesBody(body: OpenAIBody): void {
  checkBody(messagesRequestSchema, body);
}

/**
 * Top-level Messages fields the translation carries over (or that only concern Anthropic's wire and mean nothing
 * elsewhere: `user` is gw's own, from metadata). Any other field the client sets follows the unsupported-parameter
 * rule: a 400 naming it, or dropped and reported under `x-gw-drop-unsupported-params: true`.
 */
const TRANSLATED_FIELDS = new Set([
  'model', 'max_tokens', 'messages', 'system', 'tools', 'tool_choice', 'thinking', 'stop_sequences', 'temperature', 'top_p', 'metadata', 'stream', 'user', 'output_config',
]);

/**
 * Fields that only tune how Anthropic manages its own context window and ask nothing of the answer: Claude Code
 * sends `context_management` (clear old thinking or tool results when the window fills) on every request. Another
 * target keeps the whole conversation, which is what the client sent, so gw drops the field without a header
 * and names it in `x-gw-dropped-params`, and Claude Code's default set-up works on any target.
 */
const ANTHROPIC_CONTEXT_HINTS = new Set(['context_management']);

/**
 * A Messages body → the canonical chat body. Client tools become functions; tool results become `tool`
 * messages placed right after the assistant turn that called them; images and PDFs become OpenAI content
 * parts; a `system` turn inside `messages` stays a system message at its place (each provider adapter maps it to
 * its own system or developer role); thinking and `output_config.effort` map to `reasoning_effort`,
 * `output_config.format` to `response_format`. Anthropic server tools (web search, code execution, …) run only
 * on Anthropic: any other target is a 400 naming the tool. `context_management` is always dropped (and reported);
 * other fields with no equivalent (`top_k`, …) follow the unsupported-parameter rule.
 */
export function messagesToCanonical(body: OpenAIBody, provider: string, rule: UnsupportedParamRule = {}): OpenAIBody {
  const providerName = `provider '${provider}' (translated from the Messages API)`;
  const present = Object.keys(body).filter((name) => body[name] !== undefined && body[name] !== null);
  recordDropped(rule, present.filter((name) => ANTHROPIC_CONTEXT_HINTS.has(name)));
  refuseOrRecordDrop(rule, providerName, present.filter((name) => !TRANSLATED_FIELDS.has(name) && !ANTHROPIC_CONTEXT_HINTS.has(name)));
  const messages: Json[] = [];
  const system = systemText(body.system);
  if (system !== undefined) messages.push({ role: 'system', content: system });
  const keepThinking = CLAUDE_SERVING_PROVIDERS.has(provider);
  (body.messages as Json[]).forEach((message, index) => messages.push(...convertMessage(message, index, keepThinking)));

  const chat: OpenAIBody = { model: body.model, messages, max_tokens: body.max_tokens };
  for (const name of ['temperature', 'top_p', 'stream'] as const) if (body[name] !== undefined) chat[name] = body[name];
  if (Array.isArray(body.stop_sequences) && body.stop_sequences.length > 0) chat.stop = body.stop_sequences;
  const metadata = isRecord(body.metadata) ? body.metadata : undefined;
  if (typeof metadata?.user_id === 'string') chat.user = metadata.user_id;
  else if (typeof body.user === 'string') chat.user = body.user;
  if (Array.isArray(body.tools) && body.tools.length > 0) chat.tools = body.tools.map((tool, index) => convertTool(tool, index, provider));
  Object.assign(chat, toolChoice(body.tool_choice));
  Object.assign(chat, outputConfig(body.output_config, body.thinking, rule, providerName));
  return chat;
}

function systemText(system: unknown): string | undefined {
  if (typeof system === 'string') return system === '' ? undefined : system;
  if (!Array.isArray(system)) return undefined;
  const text = system.map((block) => (isRecord(block) && typeof block.text === 'string' ? block.text : '')).join('\n');
  return text === '' ? undefined : text;
}

/** Providers that serve Claude through translation and accept signed thinking blocks back (gw's `thinking_blocks`). */
const CLAUDE_SERVING_PROVIDERS = new Set(['bedrock', 'vertex-ai', 'anthropic']);

function convertMessage(message: Json, index: number, keepThinking: boolean): Json[] {
  if (message.role === 'system') {
    const text = systemText(message.content);
    return text === undefined ? [] : [{ role: 'system', content: text }];
  }
  if (message.role !== 'user' && message.role !== 'assistant') {
    throw badRequest('invalid_message', `messages.${index}.role '${String(message.role)}' cannot be translated for this target (user, assistant or system)`, `messages.${index}.role`);
  }
  const blocks: unknown[] = typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : (message.content as unknown[]);
  if (message.role === 'assistant') return [assistantMessage(blocks, index, keepThinking)];
  const toolMessages: Json[] = [];
  const parts: Json[] = [];
  blocks.forEach((block, blockIndex) => {
    const param = `messages.${index}.content.${blockIndex}`;
    if (!isRecord(block)) throw badRequest('invalid_content', `${param} must be a content block object`, param);
    if (block.type === 'tool_result') {
      toolMessages.push({ role: 'tool', tool_call_id: block.tool_use_id, content: toolResultText(block) });
    } else {
      const part = contentPart(block, param);
      if (part) parts.push(part);
    }
  });
  const out = [...toolMessages];
  if (parts.length > 0) out.push({ role: 'user', content: parts.every((part) => part.type === 'text') ? parts.map((part) => part.text).join('') : parts });
  return out;
}

function assistantMessage(blocks: unknown[], index: number, keepThinking: boolean): Json {
  const text: string[] = [];
  const toolCalls: Json[] = [];
  const reasoning: string[] = [];
  const thinkingBlocks: Json[] = [];
  for (const block of blocks) {
    if (!isRecord(block)) continue;
    if (block.type === 'text' && typeof block.text === 'string') text.push(block.text);
    else if (block.type === 'tool_use') {
      toolCalls.push({ id: block.id, type: 'function', function: { name: block.name, arguments: JSON.stringify(block.input ?? {}) } });
    } else if (block.type === 'thinking' && typeof block.thinking === 'string') {
      reasoning.push(block.thinking);
      thinkingBlocks.push({ type: 'thinking', thinking: block.thinking, signature: block.signature ?? null });
    } else if (block.type === 'redacted_thinking') thinkingBlocks.push({ type: 'redacted_thinking', data: block.data });
    else if (block.type !== 'text') throw badRequest('unsupported_content', `messages[${index}]: assistant block type '${String(block.type)}' cannot be translated for this target`, `messages.${index}.content`);
  }
  const message: Json = { role: 'assistant', content: text.length > 0 ? text.join('') : null };
  if (toolCalls.length > 0) message.tool_calls = toolCalls;
  // Other providers refuse fields they do not know on a message; thinking from another model means nothing to them.
  if (keepThinking && reasoning.length > 0) message.reasoning_content = reasoning.join('');
  if (keepThinking && thinkingBlocks.length > 0) message.thinking_blocks = thinkingBlocks;
  return message;
}

function contentPart(block: Json, param: string): Json | undefined {
  switch (block.type) {
    case 'text':
      return { type: 'text', text: String(block.text ?? '') };
    case 'image': {
      const source = isRecord(block.source) ? block.source : {};
      if (source.type === 'base64') return { type: 'image_url', image_url: { url: `data:${String(source.media_type)};base64,${String(source.data)}` } };
      if (source.type === 'url') return { type: 'image_url', image_url: { url: String(source.url) } };
      throw badRequest('unsupported_content', `${param}: image source type '${String(source.type)}' cannot be translated for this target`, `${param}.source`);
    }
    case 'document': {
      const source = isRecord(block.source) ? block.source : {};
      if (source.type === 'text') return { type: 'text', text: String(source.data ?? '') };
      if (source.type === 'base64') {
        return { type: 'file', file: { filename: typeof block.title === 'string' ? block.title : 'document.pdf', file_data: `data:${String(source.media_type)};base64,${String(source.data)}` } };
      }
      throw badRequest('unsupported_content', `${param}: document source type '${String(source.type)}' cannot be translated for this target`, `${param}.source`);
    }
    case 'thinking':
    case 'redacted_thinking':
      return undefined;
    default:
      throw badRequest('unsupported_content', `${param}: content block type '${String(block.type)}' cannot be translated for this target`, `${param}.type`);
  }
}

function toolResultText(block: Json): string {
  const content = block.content;
  const text = typeof content === 'string' ? content : Array.isArray(content) ? content.map((part) => (isRecord(part) && typeof part.text === 'string' ? part.text : '')).join('') : '';
  return block.is_error === true ? `Error: ${text}` : text;
}

function convertTool(tool: unknown, index: number, provider: string): Json {
  if (!isRecord(tool) || typeof tool.name !== 'string') throw badRequest('invalid_tool', `tools[${index}] must be an object with a name`, `tools.${index}`);
  if (tool.type !== undefined && tool.type !== 'custom') {
    throw badRequest('unsupported_tool', `The Anthropic server tool '${String(tool.type)}' (tools[${index}]) runs only on Anthropic targets; provider '${provider}' cannot run it`, `tools.${index}.type`);
  }
  const fn: Json = { name: tool.name, parameters: isRecord(tool.input_schema) ? tool.input_schema : { type: 'object', properties: {} } };
  if (typeof tool.description === 'string') fn.description = tool.description;
  return { type: 'function', function: fn };
}

function toolChoice(choice: unknown): Json {
  if (!isRecord(choice)) return {};
  const out: Json = {};
  if (choice.type === 'auto') out.tool_choice = 'auto';
  else if (choice.type === 'any') out.tool_choice = 'required';
  else if (choice.type === 'none') out.tool_choice = 'none';
  else if (choice.type === 'tool') out.tool_choice = { type: 'function', function: { name: choice.name } };
  if (choice.disable_parallel_tool_use === true) out.parallel_tool_calls = false;
  return out;
}

/**
 * `thinking` and `output_config` → `reasoning_effort` and `response_format`. Thinking on (`enabled` with a budget,
 * or `adaptive`) asks for reasoning: `output_config.effort` names its level when given (Anthropic's `max` is
 * OpenAI's `high`), else a budget maps to the nearest of low / medium / high, and adaptive thinking alone leaves
 * the model's default. An effort without thinking, and any other `output_config` key, has no chat equivalent.
 */
function outputConfig(config: unknown, thinking: unknown, rule: UnsupportedParamRule, providerName: string): Json {
  const out: Json = {};
  const settings = isRecord(config) ? config : {};
  const thinkingOn = isRecord(thinking) && (thinking.type === 'enabled' || thinking.type === 'adaptive');
  const unsupported = Object.keys(settings).filter((key) => key !== 'format' && !(key === 'effort' && thinkingOn)).map((key) => `output_config.${key}`);
  refuseOrRecordDrop(rule, providerName, unsupported);
  if (thinkingOn && typeof settings.effort === 'string') out.reasoning_effort = settings.effort === 'max' ? 'high' : settings.effort;
  else if (thinkingOn && thinking.type === 'enabled') out.reasoning_effort = effortForBudget(thinking.budget_tokens);
  const format = isRecord(settings.format) ? settings.format : undefined;
  if (format?.type === 'json_schema') out.response_format = { type: 'json_schema', json_schema: { name: 'output', schema: format.schema, strict: true } };
  else if (format) refuseOrRecordDrop(rule, providerName, ['output_config.format']);
  return out;
}

/** Extended thinking's token budget → OpenAI's effort levels (the nearest of low / medium / high). */
function effortForBudget(budgetTokens: unknown): string {
  const budget = typeof budgetTokens === 'number' ? budgetTokens : 0;
  if (budget <= 2048) return 'low';
  return budget <= 8192 ? 'medium' : 'high';
}

import { badRequest } from '../../http/errors.js';
import { isRecord } from '../common/json-guards.js';
import { compactContent, toAnthropicBlocks, toAnthropicTextBlocks, type AnthropicBlock } from './request-content.js';

export interface AnthropicMessage {
  role: 'user' | 'assistant';
  content: string | AnthropicBlock[];
}

export interface TranslatedConversation {
  /** Text of every system and developer message, in order; empty when there were none. */
  system: AnthropicBlock[];
  messages: AnthropicMessage[];
}

/**
 * OpenAI `messages` → Anthropic `system` + `messages`.
 * - system/developer messages, wherever they stand, become `system` text (Anthropic has no mid-conversation
 *   system turn);
 * - tool (and legacy function) results become `tool_result` blocks of a user turn;
 * - assistant `tool_calls` (and a legacy `function_call`) become `tool_use` blocks with parsed JSON input;
 * - consecutive turns of the same role are merged, so several tool results make one user turn, as the
 *   Messages API expects.
 */
export function toAnthropicConversation(rawMessages: unknown): TranslatedConversation {
  if (!Array.isArray(rawMessages)) throw badRequest('missing_messages', '`messages` must be an array', 'messages');
  const system: AnthropicBlock[] = [];
  const turns: Array<{ role: 'user' | 'assistant'; blocks: AnthropicBlock[] }> = [];
  // Legacy function calls carry no id: each gets one here, and the next `function` message of that name answers it.
  const pendingFunctionIds = new Map<string, string[]>();

  const append = (role: 'user' | 'assistant', blocks: AnthropicBlock[]) => {
    if (blocks.length === 0) return;
    const last = turns.at(-1);
    if (last && last.role === role) last.blocks.push(...blocks);
    else turns.push({ role, blocks: [...blocks] });
  };

  rawMessages.forEach((message: unknown, index) => {
    const param = `messages[${index}]`;
    if (!isRecord(message)) throw badRequest('invalid_message', `${param} must be an object`, param);
    switch (message.role) {
      case 'system':
      case 'developer':
        system.push(...toAnthropicTextBlocks(message.content, `${param}.content`));
        break;
      case 'user':
        append('user', toAnthropicBlocks(message.content, `${param}.content`));
        break;
      case 'assistant':
        append('assistant', assistantBlocks(message, param, index, pendingFunctionIds));
        break;
      case 'tool':
        append('user', [toolResult(message, param)]);
        break;
      case 'function':
        append('user', [functionResult(message, param, pendingFunctionIds)]);
        break;
      default:
        throw badRequest('invalid_message', `${param}.role '${String(message.role)}' is not a chat role Anthropic can take`, `${param}.role`);
    }
  });

  return { system, messages: turns.map((turn) => ({ role: turn.role, content: compactContent(turn.blocks) })) };
}

function assistantBlocks(message: Record<string, unknown>, param: string, index: number, pendingFunctionIds: Map<string, string[]>): AnthropicBlock[] {
  const blocks: AnthropicBlock[] = [...thinkingBlocks(message.thinking_blocks, `${param}.thinking_blocks`)];
  // `reasoning_content` without a signed `thinking_blocks` entry cannot go back: Anthropic refuses unsigned
  // thinking and ignores thinking from earlier turns anyway, so only the signed blocks are replayed.
  blocks.push(...toAnthropicTextBlocks(message.content, `${param}.content`));
  if (message.tool_calls !== undefined && message.tool_calls !== null) {
    if (!Array.isArray(message.tool_calls)) throw badRequest('invalid_message', `${param}.tool_calls must be an array`, `${param}.tool_calls`);
    message.tool_calls.forEach((call: unknown, callIndex) => blocks.push(toolUse(call, `${param}.tool_calls[${callIndex}]`)));
  }
  if (isRecord(message.function_call)) {
    const { name } = message.function_call;
    if (typeof name !== 'string' || name === '') throw badRequest('invalid_message', `${param}.function_call.name must be a non-empty string`, `${param}.function_call.name`);
    const id = `toolu_gw_fn_${index}`;
    pendingFunctionIds.set(name, [...(pendingFunctionIds.get(name) ?? []), id]);
    blocks.push({ type: 'tool_use', id, name, input: parseArguments(message.function_call.arguments, `${param}.function_call.arguments`) });
  }
  return blocks;
}

function thinkingBlocks(value: unknown, param: string): AnthropicBlock[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw badRequest('invalid_message', `${param} must be an array`, param);
  return value.map((block: unknown, index) => {
    const at = `${param}[${index}]`;
    if (isRecord(block) && block.type === 'thinking' && typeof block.thinking === 'string' && typeof block.signature === 'string') {
      return { type: 'thinking', thinking: block.thinking, signature: block.signature };
    }
    if (isRecord(block) && block.type === 'redacted_thinking' && typeof block.data === 'string') return { type: 'redacted_thinking', data: block.data };
    throw badRequest('invalid_message', `${at} must be {type:'thinking', thinking, signature} or {type:'redacted_thinking', data}`, at);
  });
}

function toolUse(call: unknown, param: string): AnthropicBlock {
  if (!isRecord(call) || typeof call.id !== 'string' || call.id === '' || !isRecord(call.function)) {
    throw badRequest('invalid_message', `${param} must have a string id and a function object`, param);
  }
  if (call.type !== undefined && call.type !== 'function') {
    throw badRequest('unsupported_tool_type', `${param}.type '${String(call.type)}' is not supported by Anthropic; only function tools are`, `${param}.type`);
  }
  const { name } = call.function;
  if (typeof name !== 'string' || name === '') throw badRequest('invalid_message', `${param}.function.name must be a non-empty string`, `${param}.function.name`);
  return { type: 'tool_use', id: anthropicToolId(call.id), name, input: parseArguments(call.function.arguments, `${param}.function.arguments`) };
}

function toolResult(message: Record<string, unknown>, param: string): AnthropicBlock {
  if (typeof message.tool_call_id !== 'string' || message.tool_call_id === '') {
    throw badRequest('invalid_message', `${param}.tool_call_id must be a non-empty string`, `${param}.tool_call_id`);
  }
  return { type: 'tool_result', tool_use_id: anthropicToolId(message.tool_call_id), content: toolResultContent(message.content, `${param}.content`) };
}

function functionResult(message: Record<string, unknown>, param: string, pendingFunctionIds: Map<string, string[]>): AnthropicBlock {
  const name = message.name;
  const id = typeof name === 'string' ? pendingFunctionIds.get(name)?.shift() : undefined;
  if (!id) {
    throw badRequest('invalid_message', `${param} answers no earlier assistant function_call named '${String(name)}'`, `${param}.name`);
  }
  return { type: 'tool_result', tool_use_id: id, content: toolResultContent(message.content, `${param}.content`) };
}

function toolResultContent(content: unknown, param: string): string | AnthropicBlock[] {
  if (typeof content === 'string') return content;
  if (content === undefined || content === null) return '';
  return compactContent(toAnthropicBlocks(content, param));
}

/** Tool-call arguments (a JSON string) → the object Anthropic's `input` must be; empty means no arguments. */
function parseArguments(value: unknown, param: string): Record<string, unknown> {
  if (value === undefined || value === null || value === '') return {};
  if (isRecord(value)) return value;
  if (typeof value !== 'string') throw badRequest('invalid_tool_arguments', `${param} must be a JSON string`, param);
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    throw badRequest('invalid_tool_arguments', `${param} is not valid JSON; Anthropic needs tool arguments as a JSON object`, param);
  }
  if (!isRecord(parsed)) throw badRequest('invalid_tool_arguments', `${param} must encode a JSON object`, param);
  return parsed;
}

/**
 * Anthropic tool ids must match ^[a-zA-Z0-9_-]+$; ids minted by other providers (e.g. `functions.get:0`) may
 * not. The same mapping is applied to a call and to its result, so they still pair up.
 */
export function anthropicToolId(id: string): string {
  return id.replace(/[^a-zA-Z0-9_-]/g, '_');
}

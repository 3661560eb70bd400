import { badRequest } from '../../http/errors.js';
import { contentParts, contentText, parseDataUrl } from '../common/content.js';
import type { OpenAIMessage } from '../common/openai-types.js';
import { CACHE_POINT, type ConverseCachePoint, type ConverseContentBlock, type ConverseImage, type ConverseImageFormat, type ConverseMessage } from './converse-types.js';
import { isRecord, stringOf } from './json.js';

export interface ConverseConversation {
  system: Array<{ text: string } | ConverseCachePoint>;
  messages: ConverseMessage[];
  /** Whether any turn carries toolUse / toolResult blocks (Converse then insists on a toolConfig). */
  hasToolBlocks: boolean;
}

const IMAGE_FORMATS: Record<string, ConverseImageFormat> = {
  'image/png': 'png',
  'image/jpeg': 'jpeg',
  'image/jpg': 'jpeg',
  'image/gif': 'gif',
  'image/webp': 'webp',
};

/**
 * OpenAI messages → Converse `system` + `messages`. System and developer messages go to `system` wherever they
 * stand; tool results become `toolResult` blocks of a user turn; adjacent turns of the same role are merged,
 * because Converse wants user and assistant to alternate (several tool results, or tool results followed by
 * a user message, become one user turn).
 */
export function toConverseConversation(messages: unknown[]): ConverseConversation {
  const conversation: ConverseConversation = { system: [], messages: [], hasToolBlocks: false };
  // Legacy `function_call`s carry no id: gw invents one and hands it to the `function` message that answers.
  const pendingFunctionIds = new Map<string, string[]>();
  messages.forEach((raw, index) => {
    const message = raw as OpenAIMessage;
    const at = `messages[${index}]`;
    switch (message.role) {
      case 'system':
      case 'developer': {
        const text = systemText(message, at);
        if (text !== '') conversation.system.push({ text });
        if (hasCacheControl(message.content)) conversation.system.push(CACHE_POINT);
        return;
      }
      case 'user':
        return pushTurn(conversation, 'user', userBlocks(message, at), at);
      case 'assistant':
        return pushTurn(conversation, 'assistant', assistantBlocks(message, at, index, pendingFunctionIds), at);
      case 'tool': {
        const toolUseId = stringOf(message.tool_call_id);
        if (!toolUseId) throw badRequest('invalid_message', `${at}.tool_call_id is required for a tool message`, `${at}.tool_call_id`);
        return pushTurn(conversation, 'user', [toolResult(toolUseId, message, at), ...(hasCacheControl(message.content) ? [CACHE_POINT] : [])], at);
      }
      case 'function': {
        const name = stringOf(message.name);
        const toolUseId = name ? pendingFunctionIds.get(name)?.shift() : undefined;
        if (!toolUseId) {
          throw badRequest('invalid_message', `${at} answers a function call, but no earlier assistant message called function '${name ?? ''}'`, `${at}.name`);
        }
        return pushTurn(conversation, 'user', [toolResult(toolUseId, message, at)], at);
      }
      default:
        throw badRequest('invalid_message', `${at}.role '${String(message.role)}' is not supported by Bedrock`, `${at}.role`);
    }
  });
  conversation.hasToolBlocks = conversation.messages.some((turn) => turn.content.some((block) => 'toolUse' in block || 'toolResult' in block));
  return conversation;
}

function pushTurn(conversation: ConverseConversation, role: 'user' | 'assistant', blocks: ConverseContentBlock[], at: string): void {
  if (blocks.length === 0) {
    // An assistant turn that only carried reasoning (which Converse cannot take back) simply drops out.
    if (role === 'assistant') return;
    throw badRequest('invalid_message', `${at} has no content`, `${at}.content`);
  }
  const last = conversation.messages.at(-1);
  if (last && last.role === role) last.content.push(...blocks);
  else conversation.messages.push({ role, content: blocks });
}

function systemText(message: OpenAIMessage, at: string): string {
  const parts = contentParts(message.content);
  const other = parts.findIndex((part) => part.type !== 'text');
  if (other >= 0) throw badRequest('invalid_message', `${at} is a ${message.role} message: Bedrock takes only text there`, `${at}.content[${other}]`);
  return contentText(message.content);
}

function userBlocks(message: OpenAIMessage, at: string): ConverseContentBlock[] {
  const blocks: ConverseContentBlock[] = [];
  contentParts(message.content).forEach((part, index) => {
    const where = typeof message.content === 'string' ? `${at}.content` : `${at}.content[${index}]`;
    if (part.type === 'text') {
      const text = stringOf((part as { text?: unknown }).text);
      if (text === undefined) throw badRequest('invalid_message', `${where}.text must be a string`, `${where}.text`);
      if (text !== '') blocks.push({ text });
    } else if (part.type === 'image_url') {
      blocks.push({ image: imageOf(part, where) });
    } else if (part.type === 'file') {
      blocks.push(documentBlock((part as { file?: unknown }).file, `${where}.file`, index));
    } else {
      throw badRequest('unsupported_content', `${where} has type '${part.type}'; Bedrock accepts text, image_url and file parts here`, `${where}.type`);
    }
    if (isRecord((part as { cache_control?: unknown }).cache_control)) blocks.push(CACHE_POINT);
  });
  return blocks;
}

/** Media types Converse `document` blocks take, by their format name. */
const DOCUMENT_FORMATS: Record<string, string> = {
  'application/pdf': 'pdf',
  'text/csv': 'csv',
  'application/msword': 'doc',
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document': 'docx',
  'application/vnd.ms-excel': 'xls',
  'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet': 'xlsx',
  'text/html': 'html',
  'text/plain': 'txt',
  'text/markdown': 'md',
};

/**
 * An OpenAI `file` part (`file_data` as a data URL) → a Converse `document` block. Converse names each document;
 * the name allows only letters, digits, spaces, hyphens, parentheses and brackets, so the filename is cleaned
 * (and made unique by its position). An uploaded `file_id` means nothing to Bedrock: 400.
 */
function documentBlock(file: unknown, where: string, index: number): ConverseContentBlock {
  const data = isRecord(file) ? stringOf(file.file_data) : undefined;
  const parsed = data ? parseDataUrl(data) : undefined;
  if (!parsed) {
    throw badRequest('unsupported_content', `${where}: Bedrock takes files as bytes: send file.file_data as a base64 data URL (data:application/pdf;base64,…); file_id is not supported`, `${where}.file_data`);
  }
  const format = DOCUMENT_FORMATS[parsed.mediaType.toLowerCase()];
  if (!format) throw badRequest('unsupported_content', `${where}: Bedrock documents are ${Object.values(DOCUMENT_FORMATS).join(', ')}; got ${parsed.mediaType}`, `${where}.file_data`);
  const filename = isRecord(file) ? stringOf(file.filename) : undefined;
  const cleaned = (filename ?? '').replace(/\.[A-Za-z0-9]+$/, '').replace(/[^A-Za-z0-9\s\-()[\]]/g, ' ').replace(/\s+/g, ' ').trim();
  return { document: { format, name: `${cleaned || 'document'} ${index + 1}`, source: { bytes: parsed.base64 } } };
}

/** Whether any part of a message's content asks for a cache breakpoint (Anthropic-style `cache_control`). */
function hasCacheControl(content: OpenAIMessage['content']): boolean {
  return Array.isArray(content) && content.some((part) => isRecord(part) && isRecord(part.cache_control));
}

function imageOf(part: { type: string; image_url?: unknown }, where: string): ConverseImage {
  const imageUrl = part.image_url;
  const url = isRecord(imageUrl) ? stringOf(imageUrl.url) : stringOf(imageUrl);
  const param = `${where}.image_url.url`;
  if (!url) throw badRequest('invalid_message', `${param} must be a string`, param);
  const data = parseDataUrl(url);
  if (!data) {
    throw badRequest(
      'unsupported_image_url',
      `Bedrock Converse takes images as bytes: send ${param} as a base64 data URL (data:image/png;base64,…) or an http(s) link for gw to fetch`,
      param,
    );
  }
  const format = IMAGE_FORMATS[data.mediaType.toLowerCase()];
  if (!format) {
    throw badRequest('unsupported_image_format', `Bedrock accepts png, jpeg, gif and webp images; ${param} is ${data.mediaType}`, param);
  }
  return { format, source: { bytes: data.base64 } };
}

function assistantBlocks(message: OpenAIMessage, at: string, index: number, pendingFunctionIds: Map<string, string[]>): ConverseContentBlock[] {
  // Signed thinking goes first, as the model produced it; Claude needs it back to continue a tool-use loop.
  const blocks: ConverseContentBlock[] = thinkingBlocks((message as { thinking_blocks?: unknown }).thinking_blocks, `${at}.thinking_blocks`);
  contentParts(message.content).forEach((part, partIndex) => {
    if (part.type === 'text') {
      const text = stringOf((part as { text?: unknown }).text);
      if (text) blocks.push({ text });
      if (text && isRecord((part as { cache_control?: unknown }).cache_control)) blocks.push(CACHE_POINT);
    } else if (part.type !== 'refusal') {
      throw badRequest('unsupported_content', `${at}.content[${partIndex}] has type '${part.type}'; assistant messages carry text only`, `${at}.content[${partIndex}].type`);
    }
  });
  // `reasoning_content` alone is not sent back: Converse refuses reasoning without the model's signature.
  const toolCalls: unknown = message.tool_calls;
  if (toolCalls !== undefined && toolCalls !== null) {
    if (!Array.isArray(toolCalls)) throw badRequest('invalid_message', `${at}.tool_calls must be an array`, `${at}.tool_calls`);
    toolCalls.forEach((call: unknown, callIndex) => blocks.push(toolUseBlock(call, `${at}.tool_calls[${callIndex}]`)));
  }
  if (isRecord(message.function_call)) {
    const name = stringOf(message.function_call.name);
    if (!name) throw badRequest('invalid_message', `${at}.function_call.name must be a string`, `${at}.function_call.name`);
    const toolUseId = `call_fn_${index}`;
    pendingFunctionIds.set(name, [...(pendingFunctionIds.get(name) ?? []), toolUseId]);
    blocks.push({ toolUse: { toolUseId, name, input: toolInput(message.function_call.arguments, `${at}.function_call.arguments`) } });
  }
  return blocks;
}

/**
 * `thinking_blocks` (Anthropic's shape, which gw's answers carry for Claude on Anthropic and on Bedrock alike)
 * → Converse `reasoningContent` blocks.
 */
function thinkingBlocks(value: unknown, at: string): ConverseContentBlock[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw badRequest('invalid_message', `${at} must be an array`, at);
  return value.map((block: unknown, index): ConverseContentBlock => {
    const where = `${at}[${index}]`;
    if (isRecord(block) && block.type === 'thinking' && typeof block.thinking === 'string' && typeof block.signature === 'string') {
      return { reasoningContent: { reasoningText: { text: block.thinking, signature: block.signature } } };
    }
    if (isRecord(block) && block.type === 'redacted_thinking' && typeof block.data === 'string') {
      return { reasoningContent: { redactedContent: block.data } };
    }
    throw badRequest('invalid_message', `${where} must be {"type": "thinking", "thinking", "signature"} or {"type": "redacted_thinking", "data"}`, where);
  });
}

function toolUseBlock(call: unknown, at: string): ConverseContentBlock {
  const fn = isRecord(call) && isRecord(call.function) ? call.function : undefined;
  const id = isRecord(call) ? stringOf(call.id) : undefined;
  const name = fn ? stringOf(fn.name) : undefined;
  if (!id) throw badRequest('invalid_message', `${at}.id must be a string`, `${at}.id`);
  if (!name) throw badRequest('invalid_message', `${at}.function.name must be a string`, `${at}.function.name`);
  return { toolUse: { toolUseId: id, name, input: toolInput(fn?.arguments, `${at}.function.arguments`) } };
}

/** Tool-call arguments travel as a JSON string in OpenAI's format and as a JSON object in Converse's. */
function toolInput(args: unknown, param: string): Record<string, unknown> {
  if (args === undefined || args === null || args === '') return {};
  if (typeof args !== 'string') throw badRequest('invalid_tool_arguments', `${param} must be a JSON string`, param);
  let parsed: unknown;
  try {
    parsed = JSON.parse(args);
  } catch {
    throw badRequest('invalid_tool_arguments', `${param} is not valid JSON`, param);
  }
  if (!isRecord(parsed)) throw badRequest('invalid_tool_arguments', `${param} must encode a JSON object`, param);
  return parsed;
}

/**
 * A tool message → a `toolResult` block. Text parts stay text; image parts (a screenshot tool, a chart) are
 * kept as Converse image blocks inside the result instead of being lost.
 */
function toolResult(toolUseId: string, message: OpenAIMessage, at: string): ConverseContentBlock {
  const parts = contentParts(message.content);
  if (!parts.some((part) => part.type === 'image_url')) return { toolResult: { toolUseId, content: [{ text: contentText(message.content) }] } };
  const content: Array<{ text: string } | { image: ConverseImage }> = [];
  parts.forEach((part, index) => {
    const where = `${at}.content[${index}]`;
    if (part.type === 'image_url') content.push({ image: imageOf(part, where) });
    else if (part.type === 'text') content.push({ text: String((part as { text?: unknown }).text ?? '') });
    else throw badRequest('unsupported_content', `${where} has type '${part.type}'; a Bedrock tool result takes text and image_url parts`, `${where}.type`);
  });
  return { toolResult: { toolUseId, content } };
}

import type { GuardrailVerdict } from './outcome.js';
import { isObject, type RequestBody } from './request-shapes.js';
import type { AddPrefixConfig } from './schemas.js';

/**
 * add_prefix: puts `prefix` in front of the user's input, in the dialect's own shape, never mutating the
 * client's body (a copy is returned):
 * - chat: the first or last `role: "user"` message; string content is prefixed, multi-part content has its first
 *   `text` part prefixed (a text part is inserted first when there is none);
 * - completions: `prompt` as a string, and every string of a prompt array (each is a prompt of its own);
 *   token-id prompts cannot be prefixed and are left as they are;
 * - responses: `input` as a string, else the first or last user message item (`input_text` parts);
 * - messages: the first or last user message (string, or its first `text` block; a text block is inserted after
 *   any leading `tool_result` blocks when there is none);
 * - embeddings: not a user prompt; left unchanged.
 * No user input to prefix is not an error: the request goes on unchanged, and the trace says so.
 */
export function addPrefix(config: AddPrefixConfig, endpoint: string, body: RequestBody): GuardrailVerdict {
  const position = config.position ?? 'last_user';
  switch (endpoint) {
    case 'chat':
    case 'messages':
      return prefixMessages(body, 'messages', config.prefix, position, 'text', endpoint);
    case 'responses':
      if (typeof body.input === 'string') return changed({ ...body, input: config.prefix + body.input }, 'input');
      return prefixMessages(body, 'input', config.prefix, position, 'input_text', endpoint);
    case 'completions':
      return prefixPrompt(body, config.prefix);
    default:
      return { action: 'skip', detail: `add_prefix does not apply to ${endpoint}` };
  }
}

function prefixPrompt(body: RequestBody, prefix: string): GuardrailVerdict {
  if (typeof body.prompt === 'string') return changed({ ...body, prompt: prefix + body.prompt }, 'prompt');
  if (Array.isArray(body.prompt) && body.prompt.some((item) => typeof item === 'string')) {
    return changed({ ...body, prompt: body.prompt.map((item: unknown) => (typeof item === 'string' ? prefix + item : item)) }, 'prompt[*]');
  }
  return { action: 'skip', detail: 'no text prompt to prefix' };
}

function prefixMessages(body: RequestBody, field: string, prefix: string, position: AddPrefixConfig['position'], textType: string, endpoint: string): GuardrailVerdict {
  const messages = body[field];
  if (!Array.isArray(messages)) return { action: 'skip', detail: `no ${field} to prefix` };
  const userIndexes = messages.flatMap((message, index) => (isUserMessage(message) ? [index] : []));
  if (userIndexes.length === 0) return { action: 'skip', detail: 'no user message to prefix' };
  const index = position === 'first_user' ? userIndexes[0] : userIndexes[userIndexes.length - 1];
  const message = messages[index] as RequestBody;
  const copy = [...messages];
  copy[index] = { ...message, content: prefixContent(message.content, prefix, textType, endpoint) };
  return changed({ ...body, [field]: copy }, `${field}[${index}]`);
}

function isUserMessage(message: unknown): boolean {
  // Responses input items may be `{type: "message", role: "user"}` or the short `{role: "user", content}`.
  return isObject(message) && message.role === 'user' && (message.type === undefined || message.type === 'message');
}

function prefixContent(content: unknown, prefix: string, textType: string, endpoint: string): unknown {
  if (typeof content === 'string') return prefix + content;
  if (!Array.isArray(content)) return content === undefined || content === null ? prefix : content;
  const textIndex = content.findIndex((part) => isObject(part) && part.type === textType && typeof part.text === 'string');
  if (textIndex >= 0) {
    const copy = [...content];
    const part = content[textIndex] as RequestBody;
    copy[textIndex] = { ...part, text: prefix + (part.text as string) };
    return copy;
  }
  // Anthropic wants tool results first in a user turn, so the new text block goes after them.
  const insertAt = endpoint === 'messages' ? leadingToolResults(content) : 0;
  return [...content.slice(0, insertAt), { type: textType, text: prefix }, ...content.slice(insertAt)];
}

function leadingToolResults(content: unknown[]): number {
  let count = 0;
  while (count < content.length && isObject(content[count]) && (content[count] as RequestBody).type === 'tool_result') count++;
  return count;
}

function changed(body: RequestBody, where: string): GuardrailVerdict {
  return { action: 'transform', body, detail: `prefixed ${where}` };
}

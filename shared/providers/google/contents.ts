import { badRequest } from '../../http/errors.js';
import { contentParts, contentText } from '../common/content.js';
import type { OpenAIContentPart, OpenAIMessage } from '../common/openai-types.js';
import type { GeminiContent, GeminiPart } from './gemini-types.js';
import { audioPart, filePart, mediaPart } from './media.js';

export interface GeminiConversation {
  systemInstruction?: { parts: GeminiPart[] };
  contents: GeminiContent[];
}

/**
 * OpenAI messages → Gemini `systemInstruction` + `contents`. System and developer messages become the system
 * instruction; assistant turns are role `model`; tool results are `functionResponse` parts in a `user` turn,
 * named after the call they answer (Gemini matches results to calls by function name). Consecutive messages
 * with the same Gemini role are merged, so parallel tool results land in one turn as Gemini expects.
 */
export function toGeminiConversation(messages: unknown[]): GeminiConversation {
  const system: GeminiPart[] = [];
  const contents: GeminiContent[] = [];
  const callNames = new Map<string, string>();

  messages.forEach((raw, index) => {
    const message = raw as OpenAIMessage;
    const param = `messages[${index}]`;
    switch (message.role) {
      case 'system':
      case 'developer': {
        const text = contentText(message.content);
        if (text) system.push({ text });
        return;
      }
      case 'user':
        return append(contents, 'user', userParts(message, param));
      case 'assistant':
        return append(contents, 'model', assistantParts(message, param, callNames));
      case 'tool':
        return append(contents, 'user', [toolResultPart(message, param, callNames), ...toolResultMedia(message, param)]);
      case 'function':
        if (typeof message.name !== 'string') throw badRequest('invalid_message', `${param}.name is required for a function message`, `${param}.name`);
        return append(contents, 'user', [{ functionResponse: { name: message.name, response: toolResponse(message.content) } }]);
      default:
        throw badRequest('invalid_message', `${param}.role must be system, developer, user, assistant or tool`, `${param}.role`);
    }
  });

  if (contents.length === 0) throw badRequest('invalid_message', 'messages must contain at least one user or assistant message with content for Gemini', 'messages');
  return { ...(system.length > 0 ? { systemInstruction: { parts: system } } : {}), contents };
}

function append(contents: GeminiContent[], role: 'user' | 'model', parts: GeminiPart[]): void {
  if (parts.length === 0) return;
  const last = contents.at(-1);
  if (last && last.role === role) last.parts.push(...parts);
  else contents.push({ role, parts });
}

function userParts(message: OpenAIMessage, param: string): GeminiPart[] {
  return contentParts(message.content).map((part, index) => contentPart(part, `${param}.content[${index}]`));
}

function contentPart(part: OpenAIContentPart, param: string): GeminiPart {
  const record = part as Record<string, unknown>;
  switch (part.type) {
    case 'text':
      if (typeof record.text !== 'string') throw badRequest('invalid_content', `${param}.text must be a string`, `${param}.text`);
      return { text: record.text };
    case 'image_url': {
      const image = record.image_url as { url?: unknown } | string | undefined;
      const url = typeof image === 'string' ? image : image?.url;
      if (typeof url !== 'string') throw badRequest('invalid_content', `${param}.image_url.url must be a string`, `${param}.image_url.url`);
      return mediaPart(url, 'image/jpeg', `${param}.image_url.url`);
    }
    case 'input_audio':
      return audioPart(record.input_audio, `${param}.input_audio`);
    case 'file':
      return filePart(record.file, `${param}.file`);
    default:
      throw badRequest('invalid_content', `${param}.type '${String(part.type)}' is not supported by Gemini; use text, image_url, input_audio or file`, `${param}.type`);
  }
}

function assistantParts(message: OpenAIMessage, param: string, callNames: Map<string, string>): GeminiPart[] {
  const parts: GeminiPart[] = [];
  const text = contentText(message.content);
  if (text) parts.push({ text });
  (message.tool_calls ?? []).forEach((call, index) => {
    const callParam = `${param}.tool_calls[${index}]`;
    const name = call?.function?.name;
    if (typeof name !== 'string' || name === '') throw badRequest('invalid_message', `${callParam}.function.name must be a non-empty string`, `${callParam}.function.name`);
    if (typeof call.id === 'string') callNames.set(call.id, name);
    parts.push(withSignature({ functionCall: { name, args: parseArguments(call.function.arguments, `${callParam}.function.arguments`) } }, call));
  });
  if (message.function_call) {
    const { name, arguments: args } = message.function_call;
    if (typeof name !== 'string') throw badRequest('invalid_message', `${param}.function_call.name must be a string`, `${param}.function_call.name`);
    parts.push({ functionCall: { name, args: parseArguments(args, `${param}.function_call.arguments`) } });
  }
  return parts;
}

/**
 * Gemini 3 refuses a history whose function calls lack the thought signature it sent with them. gw hands the
 * signature out on the tool call as `extra_content.google.thought_signature` (the name Google's own
 * OpenAI-compatible endpoint uses), so clients that keep the tool call as they got it send it back.
 */
function withSignature(part: GeminiPart, call: unknown): GeminiPart {
  const signature = (call as { extra_content?: { google?: { thought_signature?: unknown } } }).extra_content?.google?.thought_signature;
  return typeof signature === 'string' && signature !== '' ? { ...part, thoughtSignature: signature } : part;
}

function parseArguments(raw: unknown, param: string): Record<string, unknown> {
  if (raw === undefined || raw === null || raw === '') return {};
  if (typeof raw === 'object' && !Array.isArray(raw)) return raw as Record<string, unknown>;
  if (typeof raw !== 'string') throw badRequest('invalid_message', `${param} must be a JSON string`, param);
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw badRequest('invalid_message', `${param} is not valid JSON; Gemini needs the arguments as an object`, param);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw badRequest('invalid_message', `${param} must be a JSON object`, param);
  }
  return parsed as Record<string, unknown>;
}

function toolResultPart(message: OpenAIMessage, param: string, callNames: Map<string, string>): GeminiPart {
  const name = (typeof message.tool_call_id === 'string' ? callNames.get(message.tool_call_id) : undefined) ?? message.name;
  if (typeof name !== 'string' || name === '') {
    throw badRequest(
      'invalid_message',
      `${param}.tool_call_id does not match a tool call of an earlier assistant message; Gemini needs the function name of each tool result`,
      `${param}.tool_call_id`,
    );
  }
  return { functionResponse: { name, response: toolResponse(message.content) } };
}

/**
 * Images (and other media parts) inside a tool result are not lost: they follow the `functionResponse` as
 * parts of the same user turn, which every Gemini model reads; the text stays the function's response.
 */
function toolResultMedia(message: OpenAIMessage, param: string): GeminiPart[] {
  if (!Array.isArray(message.content)) return [];
  return message.content.flatMap((part, index) => (part.type === 'text' ? [] : [contentPart(part, `${param}.content[${index}]`)]));
}

/** Gemini wants the result as an object: JSON objects go as they are, anything else under `result`. */
function toolResponse(content: OpenAIMessage['content']): Record<string, unknown> {
  const text = contentText(content);
  try {
    const parsed: unknown = JSON.parse(text);
    if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) return parsed as Record<string, unknown>;
    return { result: parsed };
  } catch {
    return { result: text };
  }
}

import { badRequest } from '../../http/errors.js';
import type { OpenAIContentPart, OpenAIMessage } from './openai-types.js';

export interface DataUrl {
  mediaType: string;
  base64: string;
}

/** Splits a `data:<media type>;base64,<data>` URL; undefined for ordinary URLs. */
export function parseDataUrl(url: string): DataUrl | undefined {
  const match = /^data:([^;,]+);base64,(.*)$/s.exec(url);
  return match ? { mediaType: match[1], base64: match[2] } : undefined;
}

/** The message content as parts, whether it came as a string or an array. */
export function contentParts(content: OpenAIMessage['content']): OpenAIContentPart[] {
  if (content === undefined || content === null) return [];
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  if (Array.isArray(content)) return content;
  throw badRequest('invalid_message', 'message content must be a string or an array of content parts', 'messages');
}

/** All text of a content value joined, for places that only take text (system prompts, tool results). */
export function contentText(content: OpenAIMessage['content']): string {
  return contentParts(content)
    .filter((part): part is { type: 'text'; text: string } => part.type === 'text' && typeof (part as { text?: unknown }).text === 'string')
    .map((part) => part.text)
    .join('');
}

import { badRequest } from '../../http/errors.js';
import { parseDataUrl } from '../common/content.js';
import { isRecord } from '../common/json-guards.js';

/** One Anthropic content block as sent in a request. */
export type AnthropicBlock = Record<string, unknown> & { type: string };

/** The image media types the Messages API accepts. */
const IMAGE_MEDIA_TYPES = new Set(['image/jpeg', 'image/png', 'image/gif', 'image/webp']);

/**
 * OpenAI content (a string or an array of parts) → Anthropic content blocks. Text, images (`image_url` with an
 * https URL or a base64 data URL) and PDF or plain-text files (`file` with `file_data`) are translated; any
 * other part is a 400 naming it, never a silent drop. Empty text parts are skipped: Anthropic refuses them.
 */
export function toAnthropicBlocks(content: unknown, param: string): AnthropicBlock[] {
  if (content === undefined || content === null) return [];
  if (typeof content === 'string') return content === '' ? [] : [{ type: 'text', text: content }];
  if (!Array.isArray(content)) throw badRequest('invalid_message', `${param} must be a string or an array of content parts`, param);
  const blocks: AnthropicBlock[] = [];
  content.forEach((part, index) => {
    const block = toAnthropicBlock(part, `${param}[${index}]`);
    if (block) blocks.push(block);
  });
  return blocks;
}

/** Only the text of a content value, for places that take nothing else (system prompts, assistant turns). */
export function toAnthropicTextBlocks(content: unknown, param: string): AnthropicBlock[] {
  const blocks = toAnthropicBlocks(content, param);
  const notText = blocks.findIndex((block) => block.type !== 'text');
  if (notText >= 0) throw badRequest('unsupported_content', `${param} may only hold text parts for Anthropic`, param);
  return blocks;
}

function toAnthropicBlock(part: unknown, param: string): AnthropicBlock | undefined {
  if (!isRecord(part) || typeof part.type !== 'string') {
    throw badRequest('invalid_message', `${param} must be a content part object with a string \`type\``, param);
  }
  let block: AnthropicBlock | undefined;
  switch (part.type) {
    case 'text':
    case 'refusal': {
      const text = part.type === 'text' ? part.text : part.refusal;
      if (typeof text !== 'string') throw badRequest('invalid_message', `${param}.${part.type} must be a string`, param);
      if (text === '') return undefined;
      block = { type: 'text', text };
      break;
    }
    case 'image_url':
      block = imageBlock(part.image_url, `${param}.image_url`);
      break;
    case 'file':
      block = fileBlock(part.file, `${param}.file`);
      break;
    default:
      throw badRequest('unsupported_content', `Anthropic does not accept content parts of type '${part.type}' (${param})`, param);
  }
  // Prompt-caching breakpoints are Anthropic's own field; callers who know it may set it on a part.
  if (isRecord(part.cache_control)) block.cache_control = part.cache_control;
  return block;
}

function imageBlock(imageUrl: unknown, param: string): AnthropicBlock {
  const url = typeof imageUrl === 'string' ? imageUrl : isRecord(imageUrl) ? imageUrl.url : undefined;
  if (typeof url !== 'string' || url === '') throw badRequest('invalid_message', `${param}.url must be a non-empty string`, `${param}.url`);
  const data = parseDataUrl(url);
  if (!data) {
    if (!/^https?:\/\//i.test(url)) throw badRequest('invalid_image_url', `${param}.url must be an http(s) URL or a base64 data URL`, `${param}.url`);
    return { type: 'image', source: { type: 'url', url } };
  }
  // A PDF sent as an "image" is still a document Claude can read.
  if (data.mediaType === 'application/pdf') return { type: 'document', source: { type: 'base64', media_type: data.mediaType, data: data.base64 } };
  if (!IMAGE_MEDIA_TYPES.has(data.mediaType)) {
    throw badRequest('unsupported_image_type', `${param}: Anthropic accepts image/jpeg, image/png, image/gif and image/webp, not ${data.mediaType}`, `${param}.url`);
  }
  return { type: 'image', source: { type: 'base64', media_type: data.mediaType, data: data.base64 } };
}

function fileBlock(file: unknown, param: string): AnthropicBlock {
  if (!isRecord(file)) throw badRequest('invalid_message', `${param} must be an object`, param);
  if (typeof file.file_data !== 'string') {
    throw badRequest('unsupported_content', `${param}: Anthropic needs the file inline as file_data (a base64 data URL); file_id is not supported`, param);
  }
  const data = parseDataUrl(file.file_data);
  if (!data) throw badRequest('invalid_message', `${param}.file_data must be a base64 data URL`, `${param}.file_data`);
  const title = typeof file.filename === 'string' && file.filename !== '' ? { title: file.filename } : {};
  if (data.mediaType === 'application/pdf') {
    return { type: 'document', source: { type: 'base64', media_type: data.mediaType, data: data.base64 }, ...title };
  }
  if (data.mediaType === 'text/plain') {
    const text = Buffer.from(data.base64, 'base64').toString('utf8');
    return { type: 'document', source: { type: 'text', media_type: 'text/plain', data: text }, ...title };
  }
  if (IMAGE_MEDIA_TYPES.has(data.mediaType)) return { type: 'image', source: { type: 'base64', media_type: data.mediaType, data: data.base64 } };
  throw badRequest('unsupported_content', `${param}: Anthropic reads PDF, plain-text and image files, not ${data.mediaType}`, `${param}.file_data`);
}

/** One plain text block becomes a string again, the Messages API's shortest form; anything else stays blocks. */
export function compactContent(blocks: AnthropicBlock[]): string | AnthropicBlock[] {
  if (blocks.length === 1 && blocks[0].type === 'text' && blocks[0].cache_control === undefined) return blocks[0].text as string;
  return blocks;
}

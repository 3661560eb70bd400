import { badRequest } from '../../http/errors.js';
import type { OpenAIBody } from '../types.js';

/** The texts of an OpenAI embeddings body, for providers that embed text only (token arrays are refused). */
export function embeddingTexts(body: OpenAIBody, providerName: string): string[] {
  const texts = typeof body.input === 'string' ? [body.input] : body.input;
  if (!Array.isArray(texts) || texts.length === 0 || !texts.every((text) => typeof text === 'string')) {
    throw badRequest('invalid_request', `${providerName} embeds text only: \`input\` must be a string or an array of strings`, 'input');
  }
  return texts as string[];
}

export function checkEncodingFormat(body: OpenAIBody): void {
  if (body.encoding_format !== undefined && body.encoding_format !== 'float' && body.encoding_format !== 'base64') {
    throw badRequest('invalid_request', '`encoding_format` must be float or base64', 'encoding_format');
  }
}

import { badRequest } from '../../http/errors.js';
import { loadTokenCounter } from '../../tokenizer.js';
import { isRecord } from '../../providers/common/json-guards.js';
import type { OpenAIBody } from '../../providers/types.js';
import { checkBody, countTokensRequestSchema } from '../schemas.js';

/** Per-message framing tokens, as in OpenAI's chat token accounting (role and separators). */
const TOKENS_PER_MESSAGE = 3;
/** Images count as one fixed estimate: a tokenizer cannot see them, and Anthropic bills ~1.6k for a 1.15 MP image. */
const TOKENS_PER_IMAGE = 1_600;

export function validateCountTokensBody(body: OpenAIBody): void {
  checkBody(countTokensRequestSchema, body);
  if (typeof body.model !== 'string') throw badRequest('missing_model', '`model` is required', 'model');
}

/**
 * An estimate of a Messages request's input tokens for a target that is not Anthropic, counted with the
 * `gpt-tokenizer` library's o200k_base encoding (OpenAI's current one) over the text of the system prompt,
 * the messages, tool definitions and tool inputs/results.
 */
export async function countMessagesTokensLocally(body: OpenAIBody): Promise<number> {
  const texts: string[] = [];
  let fixed = 0;
  const collect = (value: unknown): void => {
    if (typeof value === 'string') texts.push(value);
    else if (Array.isArray(value)) value.forEach(collect);
    else if (isRecord(value)) {
      if (value.type === 'image' || value.type === 'document') fixed += TOKENS_PER_IMAGE;
      else if (value.type === 'tool_use') texts.push(String(value.name ?? ''), JSON.stringify(value.input ?? {}));
      else for (const key of ['text', 'thinking', 'content'] as const) if (value[key] !== undefined) collect(value[key]);
    }
  };
  collect(body.system);
  for (const message of body.messages as unknown[]) {
    fixed += TOKENS_PER_MESSAGE;
    if (isRecord(message)) collect(message.content);
  }
  if (Array.isArray(body.tools)) texts.push(JSON.stringify(body.tools));
  const text = texts.join('\n');
  if (text === '') return fixed;
  // The o200k vocabulary is megabytes of code: loaded on the first local count, never at a cold start.
  const countTokens = await loadTokenCounter();
  return fixed + countTokens(text);
}

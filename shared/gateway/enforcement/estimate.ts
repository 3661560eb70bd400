import { costOfUsage } from '../../observability/pricing/index.js';
import { isRecord } from '../../providers/common/json-guards.js';
import type { Endpoint } from '../../providers/types.js';
import { loadTokenCounter } from '../../tokenizer.js';

/**
 * The most a request can use, known before it is forwarded: what admission reserves on token, credit and
 * budget counters, replaced by the real usage when the request settles (docs/policies-enforcement.md).
 */
export interface UsageEstimate {
  promptTokens: number;
  maxOutputTokens: number;
  totalTokens: number;
}

/**
 * Completion tokens assumed when a request sets no `max_tokens` (or its dialect's equivalent): the model's
 * documented output ceiling, by model-name prefix, longest match first. A request that sets its own limit is
 * reserved exactly; these only bound requests that do not.
 */
export const DEFAULT_MAX_OUTPUT_TOKENS: ReadonlyArray<readonly [prefix: string, tokens: number]> = [
  ['gpt-4o-mini', 16_384],
  ['gpt-4o', 16_384],
  ['gpt-4.1', 32_768],
  ['gpt-4-turbo', 4_096],
  ['gpt-4', 8_192],
  ['gpt-3.5', 4_096],
  ['gpt-5', 128_000],
  ['o1', 100_000],
  ['o3', 100_000],
  ['o4', 100_000],
  ['claude-3-5-haiku', 8_192],
  ['claude-3-haiku', 4_096],
  ['claude-3', 8_192],
  ['claude', 64_000],
  ['gemini', 65_536],
  ['mistral', 32_768],
  ['command', 4_096],
  ['llama', 8_192],
];
/** Any other model. */
export const FALLBACK_MAX_OUTPUT_TOKENS = 4_096;

/** Prompts longer than this are not tokenized (cost grows with length); they count one token per 2 characters. */
const TOKENIZED_CHARACTERS = 64_000;
/** Per-message framing (role and separators), as in OpenAI's chat accounting. */
const TOKENS_PER_MESSAGE = 4;
/** An image or a file in a message: a tokenizer cannot see it; this is a generous single-image estimate. */
const TOKENS_PER_ATTACHMENT = 1_600;

/** gpt-tokenizer (o200k_base) is loaded on the first estimate only: requests without such limits never pay for it. */
const loadTokenizer = loadTokenCounter;

/** The request's maximum completion tokens: whichever field its dialect uses, else the model's default. */
export function maxOutputTokensOf(body: Record<string, unknown>): number {
  const generation = isRecord(body.generationConfig) ? body.generationConfig : {};
  for (const value of [body.max_completion_tokens, body.max_tokens, body.max_output_tokens, generation.maxOutputTokens]) {
    if (typeof value === 'number' && Number.isFinite(value) && value > 0) return Math.floor(value);
  }
  return defaultMaxOutputTokens(typeof body.model === 'string' ? body.model : undefined);
}

export function defaultMaxOutputTokens(model: string | undefined): number {
  const name = (model ?? '').toLowerCase().split('/').at(-1) ?? '';
  for (const [prefix, tokens] of DEFAULT_MAX_OUTPUT_TOKENS) if (name.startsWith(prefix)) return tokens;
  return FALLBACK_MAX_OUTPUT_TOKENS;
}

/**
 * Every piece of prompt text of a body, whatever its dialect: chat `messages` (string or block content),
 * Anthropic `system` and blocks, Responses `input` and `instructions`, completions `prompt`, embeddings
 * `input`, tool definitions. Attachments (images, files, audio) count as a fixed number of tokens.
 */
export function promptParts(body: Record<string, unknown>): { texts: string[]; fixedTokens: number } {
  const texts: string[] = [];
  let fixedTokens = 0;
  const collect = (value: unknown, depth: number): void => {
    if (depth > 64) return;
    if (typeof value === 'string') texts.push(value);
    else if (Array.isArray(value)) for (const item of value) collect(item, depth + 1);
    else if (isRecord(value)) {
      const type = typeof value.type === 'string' ? value.type : '';
      if (/image|file|document|audio/.test(type)) {
        fixedTokens += TOKENS_PER_ATTACHMENT;
        return;
      }
      if ('role' in value) fixedTokens += TOKENS_PER_MESSAGE;
      for (const key of ['content', 'text', 'input', 'output', 'arguments', 'thinking']) if (value[key] !== undefined) collect(value[key], depth + 1);
      if (type === 'tool_use' || type === 'function_call') texts.push(JSON.stringify(value.input ?? value.arguments ?? ''));
    }
  };
  for (const key of ['system', 'instructions', 'messages', 'input', 'prompt', 'contents']) collect(body[key], 0);
  if (Array.isArray(body.tools)) texts.push(JSON.stringify(body.tools));
  if (Array.isArray(body.functions)) texts.push(JSON.stringify(body.functions));
  return { texts, fixedTokens };
}

/** Prompt tokens counted with the tokenizer (long prompts estimated from their length, see above). */
export async function countPromptTokens(body: Record<string, unknown>): Promise<number> {
  const { texts, fixedTokens } = promptParts(body);
  const text = texts.join('\n');
  if (text === '') return fixedTokens;
  if (text.length > TOKENIZED_CHARACTERS) return fixedTokens + Math.ceil(text.length / 2);
  return fixedTokens + (await loadTokenizer())(text);
}

/** The request's estimated maximum: its prompt plus the completion it allows (none for embeddings). */
export async function estimateUsage(endpoint: Endpoint, body: Record<string, unknown>): Promise<UsageEstimate> {
  const promptTokens = await countPromptTokens(body);
  const maxOutputTokens = endpoint === 'embeddings' ? 0 : maxOutputTokensOf(body);
  return { promptTokens, maxOutputTokens, totalTokens: promptTokens + maxOutputTokens };
}

/**
 * The estimate's price in USD, or null when the model has no price (then no cost is reserved). A media request
 * (images, speech, transcription) is also priced by the units it may be billed for (`media`), and the larger of the
 * two is reserved: a model billed per image reports no tokens, one billed per token (gpt-image-1) no images.
 */
export async function estimateCost(provider: string | undefined, model: string | undefined, estimate: UsageEstimate, media?: Record<string, unknown>): Promise<number | null> {
  const tokens = await costOfUsage(provider, model, { prompt_tokens: estimate.promptTokens, completion_tokens: estimate.maxOutputTokens, total_tokens: estimate.totalTokens });
  const units = media ? await costOfUsage(provider, model, media) : null;
  return units === null ? tokens : tokens === null ? units : Math.max(tokens, units);
}

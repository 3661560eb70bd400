export const ANTHROPIC_BASE_URL = 'https://api.anthropic.com/v1';

/** Sent when neither the target nor a forwarded header names a version. */
export const DEFAULT_ANTHROPIC_VERSION = '2023-06-01';

/**
 * Anthropic requires `max_tokens`; OpenAI clients usually leave it out. 4096 is within the output limit of
 * every Claude model (the smallest limit, Claude 3 Haiku's, is 4096), so the default never causes a 400.
 */
export const DEFAULT_MAX_TOKENS = 4096;

/**
 * OpenAI parameters the Messages API has no counterpart for. Each is a 400 naming it unless the caller sends
 * `x-gw-drop-unsupported-params: true`. Values that ask for nothing (`n: 1`, zero penalties, …) are removed
 * before this check, see `withoutNoOpParams`. `reasoning_effort` maps to extended thinking (thinking.ts).
 */
export const UNSUPPORTED_PARAMS = [
  'n',
  'logprobs',
  'top_logprobs',
  'seed',
  'presence_penalty',
  'frequency_penalty',
  'logit_bias',
  'audio',
  'modalities',
  'prediction',
  'store',
  'metadata',
  'verbosity',
  'service_tier',
  'prompt_cache_key',
] as const;

/** The instruction that stands in for OpenAI's JSON mode, which has no Messages API equivalent. */
export const JSON_OBJECT_INSTRUCTION =
  'Respond with a single valid JSON object and nothing else: no prose before or after it and no Markdown code fences.';

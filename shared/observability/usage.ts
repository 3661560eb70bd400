/** The usage block of a log record: the same five numbers whatever dialect or provider answered. */
export interface NormalisedUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  cached_tokens: number;
  reasoning_tokens: number;
  /** Media endpoints, billed per unit (pricing/media-units.ts): images made, characters spoken, seconds transcribed. */
  images?: number;
  characters?: number;
  audio_seconds?: number;
  /** What set an image's price (the request's `size` and `quality`), kept beside `images` so a row can be re-priced. */
  image_size?: string;
  image_quality?: string;
}

/**
 * Reads OpenAI Chat (`prompt_tokens`, `*_details`), OpenAI Responses and Anthropic (`input_tokens`,
 * `output_tokens`, `cache_read_input_tokens`) usage into one shape. Undefined when nothing was reported.
 */
export function normaliseUsage(raw: Record<string, unknown> | undefined): NormalisedUsage | undefined {
  if (!raw || typeof raw !== 'object') return undefined;
  const prompt = number(raw.prompt_tokens) ?? number(raw.input_tokens) ?? 0;
  const completion = number(raw.completion_tokens) ?? number(raw.output_tokens) ?? 0;
  const promptDetails = (raw.prompt_tokens_details ?? raw.input_tokens_details) as Record<string, unknown> | undefined;
  const completionDetails = (raw.completion_tokens_details ?? raw.output_tokens_details) as Record<string, unknown> | undefined;
  const usage: NormalisedUsage = {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: number(raw.total_tokens) ?? prompt + completion,
    cached_tokens: number(promptDetails?.cached_tokens) ?? number(raw.cache_read_input_tokens) ?? 0,
    reasoning_tokens: number(completionDetails?.reasoning_tokens) ?? 0,
  };
  for (const unit of ['images', 'characters', 'audio_seconds'] as const) {
    const value = number(raw[unit]);
    if (value !== undefined) usage[unit] = value;
  }
  // Only beside a count of images: a chat body's `size` is no image's price. The caller wrote them: a value longer than
  // any price key (`1792x1024`, `hd`) names no price either (the default one applies) and is not kept as a cell.
  if (usage.images !== undefined) {
    if (priceKey(raw.image_size)) usage.image_size = raw.image_size;
    if (priceKey(raw.image_quality)) usage.image_quality = raw.image_quality;
  }
  return usage;
}

const priceKey = (value: unknown): value is string => typeof value === 'string' && value.length <= 64;

function number(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

import { isRecord } from './error-summary.js';
import { merged } from '../../merged.js';

/**
 * Some providers report prompt-cache hits in a usage field of their own, beside the totals: Moonshot (Kimi)
 * `cached_tokens`, DeepSeek `prompt_cache_hit_tokens`. OpenAI's place for them is
 * `usage.prompt_tokens_details.cached_tokens`, which is where gw's meter prices cached input at the cache rate and
 * where OpenAI clients look. Returns a fixer for the named field: the usage with the count copied there (the
 * provider's own field kept), or the same object when there is nothing to copy or the details already say it.
 */
export function cachedTokensFrom(field: string): (usage: Record<string, unknown>) => Record<string, unknown> {
  return (usage) => {
    const cached = usage[field];
    if (typeof cached !== 'number') return usage;
    const details = isRecord(usage.prompt_tokens_details) ? usage.prompt_tokens_details : {};
    if (details.cached_tokens !== undefined) return usage;
    return merged(usage, { prompt_tokens_details: merged(details, { cached_tokens: cached }) });
  };
}

/** An answer or chunk whose `usage` was made OpenAI's by `fix`; undefined when it has none or nothing changed. */
export function withUsageFixed(body: Record<string, unknown>, fix: (usage: Record<string, unknown>) => Record<string, unknown>): Record<string, unknown> | undefined {
  if (!isRecord(body.usage)) return undefined;
  const usage = fix(body.usage);
  return usage === body.usage ? undefined : merged(body, { usage });
}

import { loadTokenCounter } from '../../tokenizer.js';

/**
 * A local token estimate for providers that do not report usage (Cohere embeddings on Bedrock): gpt-tokenizer's
 * o200k_base encoding, OpenAI's current one. It is an estimate — Cohere's own tokenizer differs — but a count
 * close to the truth is better for budgets and cost than the 0 the provider implies. The encoding (a few MB) is
 * loaded on first need, not with the gateway, so cold starts of other requests do not pay for it.
 */
type CountTokens = (text: string) => number;

let counter: CountTokens | undefined;

/** Loads the tokenizer; call (and await) before `estimateTokens` is needed on a synchronous path. */
export async function loadTokenEstimator(): Promise<void> {
  if (counter) return;
  counter = await loadTokenCounter();
}

/** The estimate for these texts, or undefined when the tokenizer was not loaded. */
export function estimateTokens(texts: readonly string[]): number | undefined {
  if (!counter) return undefined;
  let total = 0;
  for (const text of texts) total += counter(text);
  return total;
}

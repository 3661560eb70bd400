import { settings } from './settings.js';

/** Counts the tokens of a text with gpt-tokenizer's o200k_base encoding (OpenAI's current one). */
export type TokenCounter = (text: string) => number;

let loading: Promise<TokenCounter> | undefined;

/**
 * gpt-tokenizer, loaded on first use and never inlined into a Lambda bundle: its o200k vocabulary is ~2.7 MiB of
 * code that only token counts and limit reservations need. The specifier is computed, so bundlers leave it
 * alone; locally it is the package in node_modules, in Lambda the file `npm run build` (or the CDK bundling
 * hook) writes beside each bundle (GW_TOKENIZER_MODULE=./gpt-tokenizer.mjs, resolved against the bundle).
 */
export function loadTokenCounter(): Promise<TokenCounter> {
  const specifier = settings().GW_TOKENIZER_MODULE;
  loading ??= (import(specifier) as Promise<typeof import('gpt-tokenizer')>).then(
    ({ countTokens }) =>
      (text: string) =>
        countTokens(text, { disallowedSpecial: new Set() }),
  );
  return loading;
}

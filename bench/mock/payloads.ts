/**
 * What the bench mock provider answers, shared by the mock process (which sends it) and the harness (which
 * checks that what came back through gw is the same answer). Everything is built once, so the mock spends
 * its time on HTTP, not on JSON.
 */

/** Path prefixes of the mock's modes; the rest of the path is the OpenAI path (`/chat/completions`, …). */
export const MOCK_MODES = {
  /** Answers at once. */
  fast: '',
  /** Waits a fixed 20 ms before the response starts (a provider's time to first token). */
  delayed: '/delay-20ms',
  /** Answers 503 with an OpenAI-style error body at once: the failing first target of a fallback config. */
  failing: '/fail-503',
  /** Streams end their HTTP body a few ms after `[DONE]`, as a provider's may: does gw keep the connection? */
  trailingEnd: '/trailing-end',
} as const;

export type MockMode = keyof typeof MOCK_MODES;

export const MOCK_DELAY_MS = 20;
export const MOCK_TRAILING_END_MS = 5;
export const MOCK_MODEL = 'bench-model';
export const MOCK_CONTENT = 'Hello from the bench mock provider, answering in a few short words.';
/** Dimensions of the deterministic embeddings the mock returns (for the semantic cache). */
export const MOCK_EMBEDDING_DIMENSIONS = 64;

/** The chat request every scenario sends, unless it varies the prompt. */
export function chatRequest(prompt = 'Say hello in five words.', stream = false): Record<string, unknown> {
  const body: Record<string, unknown> = {
    model: MOCK_MODEL,
    messages: [
      { role: 'system', content: 'You are terse.' },
      { role: 'user', content: prompt },
    ],
    max_tokens: 32,
  };
  // Both paths ask for usage, so the mock sends the same bytes to gw and to the direct client.
  if (stream) Object.assign(body, { stream: true, stream_options: { include_usage: true } });
  return body;
}

const usage = { prompt_tokens: 14, completion_tokens: 13, total_tokens: 27 };

export const CHAT_COMPLETION_JSON = Buffer.from(
  JSON.stringify({
    id: 'chatcmpl-bench',
    object: 'chat.completion',
    created: 1_700_000_000,
    model: MOCK_MODEL,
    choices: [{ index: 0, message: { role: 'assistant', content: MOCK_CONTENT, refusal: null }, finish_reason: 'stop', logprobs: null }],
    usage,
  }),
);

/** The SSE events of a streamed answer: role, one chunk per word, finish, usage, `[DONE]`. */
export const CHAT_COMPLETION_SSE: readonly Buffer[] = (() => {
  const base = { id: 'chatcmpl-bench', object: 'chat.completion.chunk', created: 1_700_000_000, model: MOCK_MODEL };
  const events: unknown[] = [{ ...base, choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }] }];
  for (const word of MOCK_CONTENT.split(/(?<= )/)) events.push({ ...base, choices: [{ index: 0, delta: { content: word }, finish_reason: null }] });
  events.push({ ...base, choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] });
  events.push({ ...base, choices: [], usage });
  return [...events.map((event) => Buffer.from(`data: ${JSON.stringify(event)}\n\n`)), Buffer.from('data: [DONE]\n\n')];
})();

export const UPSTREAM_FAILURE_JSON = Buffer.from(
  JSON.stringify({ error: { message: 'The bench mock is failing on purpose', type: 'server_error', code: 'bench_unavailable', param: null } }),
);

/**
 * A deterministic embedding: the text is normalised (case, punctuation, spacing) before it is hashed, so two
 * prompts that differ only in those get the same vector (a semantic hit that is not an exact hit), while
 * different prompts get unrelated unit vectors.
 */
export function mockEmbedding(text: string): number[] {
  const normalised = text.toLowerCase().replace(/[^a-z0-9]+/g, ' ').trim();
  let seed = 2166136261;
  for (let i = 0; i < normalised.length; i++) seed = Math.imul(seed ^ normalised.charCodeAt(i), 16777619) >>> 0;
  const vector: number[] = [];
  let norm = 0;
  for (let i = 0; i < MOCK_EMBEDDING_DIMENSIONS; i++) {
    // xorshift32: cheap and reproducible.
    seed ^= seed << 13;
    seed >>>= 0;
    seed ^= seed >>> 17;
    seed ^= seed << 5;
    seed >>>= 0;
    const value = seed / 0xffffffff - 0.5;
    vector.push(value);
    norm += value * value;
  }
  const scale = 1 / Math.sqrt(norm);
  return vector.map((value) => value * scale);
}

/**
 * The JSON text of each inline log body, made once when the body is sized for storage (log-bodies.ts) and reused
 * when the log row is built (engine/columns.ts), so a body is serialised once per request, not twice (issue #34).
 * Keyed by the body object: nothing outlives the record. No imports: the column list is also read by the CDK app.
 */
const serialised = new WeakMap<object, string>();

/** Remembers `text` as the JSON of `body` (the exact `JSON.stringify(body)`). */
export function rememberSerialisedBody(body: object, text: string): void {
  serialised.set(body, text);
}

/** The JSON text of a stored body, or null when there is none: the remembered text, else `JSON.stringify`. */
export function serialisedBody(body: unknown): string | null {
  if (body === undefined || body === null) return null;
  return (typeof body === 'object' ? serialised.get(body) : undefined) ?? JSON.stringify(body);
}

/**
 * The value a provider's answer bytes parsed to: the attempt parses every JSON answer (provider-body.ts), and the
 * after-path needs that value again to redact the stored body. Keyed by the very bytes the client received, so
 * a body that was changed on the way (a dialect's answer) is parsed again instead (issue #34).
 */
const parsedAnswers = new WeakMap<object, unknown>();

export function rememberParsedAnswer(bytes: Uint8Array, value: unknown): void {
  parsedAnswers.set(bytes, value);
}

/** What `bytes` parsed to, if the attempt said so. */
export function parsedAnswerOf(bytes: Uint8Array): unknown {
  return parsedAnswers.get(bytes);
}

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

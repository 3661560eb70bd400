/**
 * The one redaction function of gw: everything that is stored or printed for observability (log records,
 * bodies, spans, exports, OTLP attributes) passes through `redact` first. It removes
 *  - values under keys that name a credential (api_key, authorization, password, secret, token, …), and
 *  - credential-shaped text anywhere in strings: gw keys (gwk_…), provider keys (sk-…, sk-ant-…), Bearer
 *    tokens, JWTs, AWS access key ids, Google API keys, private-key blocks.
 * Token counts (`prompt_tokens`, `max_tokens`, …) are not credentials and are kept.
 */
export const REDACTED = '[REDACTED]';

const SECRET_KEY = /(^|[_-])(api[_-]?key|apikey|authorization|auth[_-]?token|access[_-]?token|refresh[_-]?token|id[_-]?token|session[_-]?token|secret|client[_-]?secret|password|passwd|credential|credentials|private[_-]?key|x[_-]gw[_-]api[_-]key|x[_-]api[_-]key|cookie|set[_-]cookie)$/i;
const SAFE_KEY = /tokens$|^token_count$|_tokens_|^max_tokens$/i;

const SECRET_TEXT: ReadonlyArray<RegExp> = [
  /\bgwk_[A-Za-z0-9_-]{8,}/g,
  /\bsk-(?:ant-|proj-)?[A-Za-z0-9_-]{16,}/g,
  /\bBearer\s+[A-Za-z0-9._~+/=-]{8,}/gi,
  /\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g,
  /\b(?:AKIA|ASIA)[A-Z0-9]{16}\b/g,
  /\bAIza[0-9A-Za-z_-]{35}\b/g,
  /-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?-----END [A-Z ]*PRIVATE KEY-----/g,
];

/** True when a property of this name holds a credential, whatever its value. */
export function isSecretKey(key: string): boolean {
  return SECRET_KEY.test(key) && !SAFE_KEY.test(key);
}

/** Removes credential-shaped substrings from a text. */
export function redactText(text: string): string {
  let result = text;
  for (const pattern of SECRET_TEXT) result = result.replace(pattern, REDACTED);
  return result;
}

/**
 * A redacted deep copy of a JSON-like value (the input is never changed). Depth is bounded: anything nested
 * deeper than 64 levels is replaced, so a hostile body cannot blow the stack on the after-path.
 */
export function redact<T>(value: T): T {
  return walk(value, 0) as T;
}

function walk(value: unknown, depth: number): unknown {
  if (typeof value === 'string') return redactText(value);
  if (value === null || typeof value !== 'object') return value;
  if (depth > 64) return REDACTED;
  if (Buffer.isBuffer(value) || value instanceof Uint8Array) return redactText(Buffer.from(value).toString('utf8'));
  if (Array.isArray(value)) return value.map((entry) => walk(entry, depth + 1));
  const copy: Record<string, unknown> = {};
  for (const [key, entry] of Object.entries(value)) {
    copy[key] = isSecretKey(key) && entry !== null && entry !== undefined && typeof entry !== 'number' && typeof entry !== 'boolean' ? REDACTED : walk(entry, depth + 1);
  }
  return copy;
}

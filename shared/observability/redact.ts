/**
 * The one redaction function of gw: everything that is stored or returned for observability (log records,
 * bodies, spans, exports, OTLP attributes, error texts) passes through `redact` or `redactText` first. It removes
 *  - the credentials the request used, by value (`KnownCredentials`): whatever their shape, wherever a provider
 *    quoted them back (an error body, a message, a span's error);
 *  - values under keys that name a credential (api_key, authorization, password, secret, any `*_token` /
 *    `*-token`, …), and
 *  - credential-shaped text anywhere in strings: gw keys (gwk_…), provider keys (sk-…, sk-ant-…), Bearer
 *    tokens, JWTs, AWS access key ids, Google API keys, private-key blocks.
 * Token counts (`prompt_tokens`, `max_tokens`, …) are not credentials and are kept.
 */
export const REDACTED = '[REDACTED]';

// Names that say credential, and (the documented `*_token` names: authorization_token, X-Api-Token,
// x-amz-security-token, …) any name ending in `_token` or `-token`. A bare `token` is not one: logprobs entries
// are `{token, logprob}`. One regex, so a key costs one test.
const SECRET_KEY =
  /(?:(?:^|[_-])(?:api[_-]?key|apikey|authorization|auth[_-]?token|access[_-]?token|refresh[_-]?token|id[_-]?token|session[_-]?token|secret|client[_-]?secret|password|passwd|credential|credentials|private[_-]?key|x[_-]gw[_-]api[_-]key|x[_-]api[_-]key|cookie|set[_-]cookie)|[_-]token)$/i;
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

// Every SECRET_TEXT pattern starts with one of these literals: a text containing none of them (nearly every string
// of a record) is tested once instead of replaced seven times (redactText was the hottest of gw's own functions,
// issue #34). Case-insensitive, so it matches a superset of what the patterns match; a hit runs them all.
const SECRET_TEXT_HINT = /gwk_|sk-|bearer|eyJ|AKIA|ASIA|AIza|-----BEGIN/i;

/**
 * Credentials of this length or more are masked by value wherever they appear. Shorter ones (a test key, a PIN-like
 * token) would blank ordinary words if masked everywhere, so they are masked only where they stand as a
 * credential: a whole string that is exactly the value (a JSON field, a header), a JSON string value in raw
 * JSON text (`: "abc12"`), and a word-bounded occurrence shortly after a word that labels a credential (`key`,
 * `token`, `secret`, `password`, `credential`, `Bearer`, `authorization`: "Incorrect API key provided: abc12").
 * Values under a key that names a credential are redacted whatever their length (`redact`). docs/security.md.
 */
export const MIN_KNOWN_LENGTH = 8;

// Up to 32 characters on one line between the label and the value: "API key provided: ", "token '", "Bearer ".
// Labels may sit inside longer names (authorization_token, x-api-key): a short value near them is masked too.
const CREDENTIAL_LABEL = String.raw`(?:api[\s_-]?key|key|token|secret|password|passwd|credential|credentials|bearer|authorization)`;

/** Where a short credential stands as one (see MIN_KNOWN_LENGTH). */
function shortCredentialPattern(value: string): RegExp {
  const literal = value.replace(/[.*+?^${}()|[\]\\/-]/g, String.raw`\$&`);
  return new RegExp(String.raw`(?<=${CREDENTIAL_LABEL}[^\n]{0,32}?)(?<![A-Za-z0-9])${literal}(?![A-Za-z0-9])|(?<=:\s*")${literal}(?=")`, 'gi');
}

/**
 * The credentials one request used (or one MCP server holds), masked by value wherever they appear. Cheap:
 * one `includes` scan per text and credential (a request has one to three), nothing at all when there are none;
 * a short credential costs a regex only on a text that contains it.
 */
export class KnownCredentials {
  private readonly values = new Set<string>();
  private readonly shortValues = new Map<string, RegExp>();

  add(value: string | undefined): void {
    if (value === undefined || value === '') return;
    // As it appears inside JSON text (a relayed body, an SSE event's data) when escaping changes it.
    const escaped = JSON.stringify(value).slice(1, -1);
    for (const form of escaped === value ? [value] : [value, escaped]) {
      if (form.length >= MIN_KNOWN_LENGTH) this.values.add(form);
      else if (!this.shortValues.has(form)) this.shortValues.set(form, shortCredentialPattern(form));
    }
  }

  get size(): number {
    return this.values.size + this.shortValues.size;
  }

  mask(text: string): string {
    let result = text;
    for (const value of this.values) if (result.includes(value)) result = result.replaceAll(value, REDACTED);
    if (this.shortValues.size === 0) return result;
    for (const [value, pattern] of this.shortValues) {
      if (!result.includes(value)) continue;
      result = result === value ? REDACTED : result.replace(pattern, REDACTED);
    }
    return result;
  }
}

/** True when a property of this name holds a credential, whatever its value. */
export function isSecretKey(key: string): boolean {
  let secret = secretKeyVerdicts.get(key);
  if (secret === undefined) {
    secret = SECRET_KEY.test(key) && !SAFE_KEY.test(key);
    // Bounded: a body with endless distinct keys costs the regexes, never memory.
    if (secretKeyVerdicts.size >= MAX_KEY_VERDICTS) secretKeyVerdicts.clear();
    secretKeyVerdicts.set(key, secret);
  }
  return secret;
}

// The same few dozen property names (model, messages, role, content, usage, …) are met on every request: their
// verdict is remembered instead of running two regexes per key per record.
const MAX_KEY_VERDICTS = 4_096;
const secretKeyVerdicts = new Map<string, boolean>();

/** Removes the known credentials and credential-shaped substrings from a text. */
export function redactText(text: string, known?: KnownCredentials): string {
  let result = known && known.size > 0 ? known.mask(text) : text;
  if (!SECRET_TEXT_HINT.test(result)) return result;
  for (const pattern of SECRET_TEXT) result = result.replace(pattern, REDACTED);
  return result;
}

/**
 * The value with every credential redacted; the input is never changed. Depth is bounded: anything nested deeper
 * than 64 levels is replaced, so a hostile body cannot blow the stack on the after-path. Copy on write: an array
 * or plain object with nothing to redact inside is returned as it is, not copied (most of a record and its bodies:
 * issue #34), so callers must not change the result either.
 */
export function redact<T>(value: T, known?: KnownCredentials): T {
  return walk(value, 0, known && known.size > 0 ? known : undefined) as T;
}

/**
 * A copy of a JSON-like value with only the known credentials masked (what a client's own answer gets: the rest
 * of a provider's error body is the caller's to read). The value itself when there is nothing to mask.
 */
export function maskCredentials<T>(value: T, known: KnownCredentials | undefined): T {
  if (!known || known.size === 0) return value;
  return maskWalk(value, 0, known) as T;
}

function maskWalk(value: unknown, depth: number, known: KnownCredentials): unknown {
  if (typeof value === 'string') return known.mask(value);
  if (value === null || typeof value !== 'object' || Buffer.isBuffer(value) || value instanceof Uint8Array) return value;
  if (depth > 64) return REDACTED;
  if (Array.isArray(value)) return value.map((entry) => maskWalk(entry, depth + 1, known));
  const copy: Record<string, unknown> = {};
  for (const [key, entry] of Object.entries(value)) copy[key] = maskWalk(entry, depth + 1, known);
  return copy;
}

function walk(value: unknown, depth: number, known: KnownCredentials | undefined): unknown {
  if (typeof value === 'string') return redactText(value, known);
  if (value === null || typeof value !== 'object') return value;
  if (depth > 64) return REDACTED;
  if (Buffer.isBuffer(value) || value instanceof Uint8Array) return redactText(Buffer.from(value).toString('utf8'), known);
  if (Array.isArray(value)) {
    let copy: unknown[] | undefined;
    for (let index = 0; index < value.length; index++) {
      const entry: unknown = value[index];
      const redacted = walk(entry, depth + 1, known);
      if (copy) copy.push(redacted);
      else if (redacted !== entry) (copy = value.slice(0, index)).push(redacted);
    }
    return copy ?? value;
  }
  // Anything but a plain object (a class instance) is always copied into a plain one, as JSON would see it.
  const prototype: unknown = Object.getPrototypeOf(value);
  let copy: Record<string, unknown> | undefined = prototype === Object.prototype || prototype === null ? undefined : {};
  const source = value as Record<string, unknown>;
  const keys = Object.keys(source);
  for (let index = 0; index < keys.length; index++) {
    const key = keys[index];
    const entry = source[key];
    const redacted = isSecretKey(key) && entry !== null && entry !== undefined && typeof entry !== 'number' && typeof entry !== 'boolean' ? REDACTED : walk(entry, depth + 1, known);
    if (copy) copy[key] = redacted;
    else if (redacted !== entry) {
      copy = {};
      for (let before = 0; before < index; before++) copy[keys[before]] = source[keys[before]];
      copy[key] = redacted;
    }
  }
  return copy ?? value;
}

import { GatewayError } from './errors.js';

/**
 * A path gw does not serve, answered with the path it expected before any authentication message: a wrong base
 * URL is the most common first mistake, and "missing credentials" or "JWT not configured" sends people looking
 * in the wrong place. Paths are public (docs/openapi.yaml lists them), so naming them tells a caller nothing new.
 *
 * The usual mistakes: an OpenAI SDK with a base URL without `/v1` (`POST /chat/completions`), an Anthropic SDK or
 * Claude Code with one ending in `/v1` (`POST /v1/v1/messages`, as they add `/v1` themselves).
 */
export function unknownPathError(method: string, path: string, isServed: (path: string) => boolean): GatewayError {
  const asked = `${method.toUpperCase()} ${path}`;
  const segments = path.split('/').filter(Boolean);
  let leadingV1 = 0;
  while (segments[leadingV1] === 'v1') leadingV1++;
  const expected = `/v1/${segments.slice(leadingV1).join('/')}`;
  if (leadingV1 !== 1 && segments.length > leadingV1 && isServed(expected)) {
    const fix = leadingV1 === 0 ? missingV1Hint(expected) : doubledV1Hint(expected);
    return notFound(`gw serves ${method.toUpperCase()} ${expected}, not ${path}: ${fix}`, expected);
  }
  return notFound(
    `gw does not serve ${asked}. Inference is at /v1/chat/completions, /v1/responses, /v1/messages and /v1/embeddings (base URL http://<gw>/v1 for OpenAI clients, http://<gw> for Anthropic clients); docs/openapi.yaml lists every path`,
    null,
  );
}

function missingV1Hint(expected: string): string {
  return isAnthropicPath(expected)
    ? 'the base URL is missing /v1 somewhere; Anthropic clients take the bare gw URL (ANTHROPIC_BASE_URL=http://<gw>) and add /v1 themselves'
    : 'the base URL is missing /v1 (OpenAI clients: baseURL http://<gw>/v1)';
}

function doubledV1Hint(expected: string): string {
  return isAnthropicPath(expected)
    ? 'the base URL ends in /v1 and the client adds /v1 itself (Anthropic SDKs and Claude Code: ANTHROPIC_BASE_URL=http://<gw>, without /v1)'
    : 'the base URL has /v1 twice (OpenAI clients: baseURL http://<gw>/v1)';
}

function isAnthropicPath(path: string): boolean {
  return path === '/v1/messages' || path === '/v1/messages/count_tokens';
}

function notFound(message: string, expected: string | null): GatewayError {
  // The served path goes in a header too, so a program can read it without parsing the message.
  return new GatewayError(404, 'route_not_found', message, { type: 'not_found_error', headers: expected ? { 'x-gw-expected-path': expected } : {} });
}

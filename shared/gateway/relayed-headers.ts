/** Provider rate-limit header families gw passes on unchanged, so clients can pace themselves. */
const RELAYED_PREFIXES = ['x-ratelimit-', 'anthropic-ratelimit-'];
/** Where providers put their own request id (OpenAI, Anthropic, AWS, Azure). */
const REQUEST_ID_HEADERS = ['x-request-id', 'request-id', 'x-amzn-requestid', 'apim-request-id'];

/**
 * The headers of a successful provider answer that gw relays: its rate-limit headers as they are, and its
 * request id as `x-gw-upstream-request-id` (and `x-request-id`, as before). gw's own 429s never come through
 * here, so they keep gw's own `x-ratelimit-*`.
 */
export function relayedUpstreamHeaders(upstream: Record<string, string | string[] | undefined>): Record<string, string> {
  const relayed: Record<string, string> = {};
  for (const [name, value] of Object.entries(upstream)) {
    if (typeof value !== 'string') continue;
    if (RELAYED_PREFIXES.some((prefix) => name.startsWith(prefix))) relayed[name] = value;
  }
  const requestId = REQUEST_ID_HEADERS.map((name) => upstream[name]).find((value): value is string => typeof value === 'string');
  if (requestId) {
    relayed['x-request-id'] = requestId;
    relayed['x-gw-upstream-request-id'] = requestId;
  }
  return relayed;
}

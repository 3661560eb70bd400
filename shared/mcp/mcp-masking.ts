import type { KnownCredentials } from '../observability/redact.js';

/**
 * What gw relays from an MCP server (a JSON-RPC answer, an SSE event, a non-2xx page) with the request's known
 * credentials masked by value: the server's stored credential is gw's, never the caller's to read, whether the
 * server quotes it in an error object, a failed tool result or a 500 page. Every message is scanned, not only
 * errors: the scan is one `includes` per credential on text gw already holds (an event it parses anyway), and
 * a success that echoes the credential would leak it just the same. Nothing is scanned when the server has none.
 */
export function maskedText(text: string, known: KnownCredentials | undefined): string {
  return known && known.size > 0 ? known.mask(text) : text;
}

/** A relayed body (text or bytes) with the known credentials masked; the body itself when none appear in it. */
export function maskedBody(body: string | Buffer, known: KnownCredentials | undefined): string | Buffer {
  if (!known || known.size === 0) return body;
  const text = typeof body === 'string' ? body : body.toString('utf8');
  const masked = known.mask(text);
  return masked === text ? body : masked;
}

import { GatewayError } from '../http/errors.js';
import type { ProviderAdapter } from '../providers/types.js';
import { readUpstreamBody, type UpstreamResponse } from './upstream-client.js';

const MAX_ERROR_BODY_BYTES = 256 * 1024;

/**
 * A non-2xx provider answer becomes gw's error shape: the status is kept, the message and code come from the
 * provider's body, and the body itself is kept under `error.provider_error`.
 */
export async function providerErrorFrom(adapter: ProviderAdapter, upstream: UpstreamResponse): Promise<GatewayError> {
  let providerBody: unknown;
  try {
    const text = (await readUpstreamBody(upstream.body, MAX_ERROR_BODY_BYTES)).toString('utf8');
    providerBody = parseJsonOrText(text);
  } catch {
    providerBody = undefined;
  }
  const summary = adapter.toOpenAIError(upstream.status, providerBody, upstream.headers);
  const headers: Record<string, string> = {};
  for (const name of ['retry-after', 'retry-after-ms']) {
    const value = upstream.headers[name];
    if (typeof value === 'string') headers[name] = value;
  }
  // A provider may say in its body or error-type header what its HTTP status does not (see ProviderErrorSummary).
  if (summary.retryAfterSeconds !== undefined && headers['retry-after'] === undefined) headers['retry-after'] = String(summary.retryAfterSeconds);
  return new GatewayError(summary.status ?? upstream.status, summary.code ?? 'provider_error', summary.message, {
    type: 'upstream_error',
    param: summary.param ?? null,
    providerError: providerBody ?? null,
    headers,
    upstream: true,
  });
}

export function parseJsonOrText(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

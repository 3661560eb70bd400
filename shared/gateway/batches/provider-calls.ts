import { GatewayError } from '../../http/errors.js';
import type { ProviderAdapter } from '../../providers/types.js';
import { settings } from '../../settings.js';
import { MAX_RESPONSE_BYTES } from '../attempt-upstream.js';
import { readUpstreamBody, sendUpstream } from '../upstream-client.js';
import { providerErrorFrom } from '../upstream-errors.js';
import type { BatchApiCall } from './providers/types.js';

/**
 * One call of a provider's batch API through gw's upstream pool (its timeouts and connect-time address
 * checks): the answer's bytes on 2xx, else the provider's error in gw's shape with its status.
 */
export async function sendBatchCall(adapter: ProviderAdapter, call: BatchApiCall, signal?: AbortSignal): Promise<Buffer> {
  return (await send(adapter, call, false, signal))!;
}

/** As sendBatchCall, but a 404 is undefined: an object a batch job has not written (a bucket's results file). */
export async function sendBatchCallUnlessMissing(adapter: ProviderAdapter, call: BatchApiCall, signal?: AbortSignal): Promise<Buffer | undefined> {
  return send(adapter, call, true, signal);
}

async function send(adapter: ProviderAdapter, call: BatchApiCall, missingOk: boolean, signal?: AbortSignal): Promise<Buffer | undefined> {
  const upstream = await sendUpstream(
    { url: call.url, method: call.method, headers: call.headers, body: call.body ?? '' },
    { timeoutMs: settings().GW_DEFAULT_REQUEST_TIMEOUT_MS, idleTimeoutMs: settings().GW_STREAM_IDLE_TIMEOUT_MS, signal },
  );
  if (missingOk && upstream.status === 404) {
    await upstream.body.dump?.({ limit: 64 * 1024 });
    return undefined;
  }
  if (upstream.status < 200 || upstream.status >= 300) throw await providerErrorFrom(adapter, upstream);
  return readUpstreamBody(upstream.body, MAX_RESPONSE_BYTES);
}

/** A JSON answer of the batch API (an object), or a 502: a 2xx that is not one is the provider's failure. */
export async function sendBatchJson(adapter: ProviderAdapter, call: BatchApiCall, signal?: AbortSignal): Promise<Record<string, unknown>> {
  const raw = await sendBatchCall(adapter, call, signal);
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw.toString('utf8'));
  } catch {
    parsed = undefined;
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new GatewayError(502, 'upstream_invalid_response', "The provider's batch API answered 2xx with a body that is not a JSON object", { type: 'upstream_error', upstream: true });
  }
  return parsed as Record<string, unknown>;
}

import type { ProviderAdapter, UpstreamCall } from '../providers/types.js';
import { settings } from '../settings.js';
import type { LeafSettings } from './config/target-tree.js';
import type { GatewayContext } from './context.js';
import { sendFannedOut } from './fan-out.js';
import { sendUpstream, type UpstreamResponse } from './upstream-client.js';
import { providerErrorFrom } from './upstream-errors.js';

/** The largest answer a try reads whole (JSON, text): a larger one is an upstream failure. */
export const MAX_RESPONSE_BYTES = 64 * 1024 * 1024;

/** Connect and first byte of one try: the request's x-gw-request-timeout, else the leaf's, else gw's default. */
export function attemptTimeoutMs(context: GatewayContext, leaf: LeafSettings): number {
  return context.options.requestTimeoutMs ?? leaf.requestTimeoutMs ?? settings().GW_DEFAULT_REQUEST_TIMEOUT_MS;
}

/**
 * Sends one try's call (all its parts, when it fans out) with gw's timeouts and the client's abort signal, and
 * returns the provider's 2xx answer with its body unread. Any other status becomes the provider's error in gw's
 * shape, whose status tells routing whether to retry or fall back.
 */
export async function sendAccepted(context: GatewayContext, adapter: ProviderAdapter, call: UpstreamCall, timeoutMs: number): Promise<UpstreamResponse> {
  const upstream = await (call.fanOut ? sendFannedOut : sendUpstream)(call, {
    timeoutMs,
    idleTimeoutMs: settings().GW_STREAM_IDLE_TIMEOUT_MS,
    signal: context.request.signal,
  });
  if (upstream.status < 200 || upstream.status >= 300) throw await providerErrorFrom(adapter, upstream);
  return upstream;
}

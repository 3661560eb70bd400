import type { Dispatcher } from 'undici';
import AgentImplementation from 'undici/lib/dispatcher/agent.js';
import dispatcherRequest from 'undici/lib/api/api-request.js';
import undiciErrors from 'undici/lib/core/errors.js';

/**
 * The three parts of undici gw uses — the pooling Agent, the request API and its error classes — imported
 * from their own modules. undici's entry module loads everything (fetch, WebSocket, mocks, caches) and cannot
 * be tree-shaken: importing it costs the gateway bundle about 230 KiB and its cold start the time to load them.
 */
export const Agent = AgentImplementation;
export type Agent = InstanceType<typeof AgentImplementation>;
export const errors = undiciErrors;

/** `undici.request(url, options)`: one request through `dispatcher`. */
export function request(url: string, options: Omit<Dispatcher.RequestOptions, 'origin' | 'path'> & { dispatcher: Dispatcher }): Promise<Dispatcher.ResponseData> {
  const target = new URL(url);
  const { dispatcher, ...rest } = options;
  return dispatcherRequest.call(dispatcher, { ...rest, origin: target.origin, path: `${target.pathname}${target.search}` });
}

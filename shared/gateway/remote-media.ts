import { isIP } from 'node:net';
import { GatewayError, badRequest } from '../http/errors.js';
import type { FetchedImage, ImageFetcher } from '../providers/types.js';
import { settings } from '../settings.js';
import { addressRefusal, hostnameRefusal, normaliseHostname, type HostRules } from './custom-host.js';
import { checkedLookup, RefusedAddressError } from './checked-lookup.js';
import { imageMediaType } from './image-types.js';
import { HttpPool, type PooledResponse } from './http-pool.js';
import { clientClosed } from './upstream-client.js';

/**
 * Fetches image links for providers that take image bytes only (Bedrock Converse). The gateway becomes an HTTP
 * client of a URL the caller chose, so every rule of custom hosts applies: http(s) only, no credentials in the URL,
 * IP literals and names checked before the call, and every address DNS returns checked again at connect time
 * (the checked address is the one connected to, which defeats DNS rebinding). Each redirect is checked the same
 * way. Size, time and redirects are capped by settings. Failures are 400s naming the message part; messages name
 * the host only, never the path or query (a presigned URL carries a signature) and never the bytes.
 */

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

let pool: HttpPool | undefined;

function rules(): HostRules {
  return { allowLoopback: settings().GW_ALLOW_LOOPBACK_HOSTS, allowPrivate: settings().GW_ALLOW_PRIVATE_HOSTS };
}

/**
 * Its own small pool (image hosts are not provider origins), with the connect-time address check; each fetch's
 * timer (GW_IMAGE_FETCH_TIMEOUT_MS or less) bounds connecting as well.
 */
function mediaPool(): HttpPool {
  return (pool ??= new HttpPool({ maxSocketsPerOrigin: 32, idleSocketMs: 10_000, lookup: checkedLookup(rules) }));
}

export interface RemoteMediaOptions {
  /** The request's own time left for this attempt; the fetch never waits longer than it or the setting. */
  timeoutMs: number;
  /** The client went away. */
  signal?: AbortSignal;
}

/**
 * An ImageFetcher for one request. Each link is fetched once per request (a retry or a fallback to another Bedrock
 * target reuses the bytes), and at most GW_IMAGE_FETCH_CONCURRENCY fetches run at a time.
 */
export function remoteImageFetcher(scope: object, options: RemoteMediaOptions): ImageFetcher {
  let cache = fetchedByScope.get(scope);
  if (!cache) fetchedByScope.set(scope, (cache = new Map()));
  const known = cache;
  const limit = settings().GW_IMAGE_FETCH_CONCURRENCY;
  let running = 0;
  const waiting: Array<() => void> = [];
  const slot = async (): Promise<() => void> => {
    if (running >= limit) await new Promise<void>((resolve) => waiting.push(resolve));
    running++;
    return () => {
      running--;
      waiting.shift()?.();
    };
  };
  return (url, param) => {
    const cached = known.get(url);
    if (cached) return cached;
    const pending = slot().then(async (release) => {
      try {
        return await fetchImage(url, param, options);
      } finally {
        release();
      }
    });
    known.set(url, pending);
    pending.catch(() => known.delete(url));
    return pending;
  };
}

const fetchedByScope = new WeakMap<object, Map<string, Promise<FetchedImage>>>();

/** One image link → its bytes, following at most GW_IMAGE_FETCH_MAX_REDIRECTS redirects, each re-checked. */
export async function fetchImage(link: string, param: string, options: RemoteMediaOptions): Promise<FetchedImage> {
  const timeoutMs = Math.min(settings().GW_IMAGE_FETCH_TIMEOUT_MS, options.timeoutMs);
  const controller = new AbortController();
  let reason: 'timeout' | 'client' | undefined;
  const abort = (why: 'timeout' | 'client') => {
    reason ??= why;
    controller.abort();
  };
  if (options.signal?.aborted) throw clientClosed();
  const onClientAbort = () => abort('client');
  options.signal?.addEventListener('abort', onClientAbort, { once: true });
  const timer = setTimeout(() => abort('timeout'), timeoutMs);
  let url = checkedUrl(link, param);
  try {
    for (let redirects = 0; ; redirects++) {
      const response = await get(url, controller.signal);
      const location = headerOf(response.headers, 'location');
      if (REDIRECTS.has(response.statusCode) && location) {
        await response.body.dump().catch(() => undefined);
        if (redirects >= settings().GW_IMAGE_FETCH_MAX_REDIRECTS) throw fetchFailed(param, url, `more than ${settings().GW_IMAGE_FETCH_MAX_REDIRECTS} redirects`);
        url = checkedUrl(new URL(location, url).toString(), param, 'redirects to');
        continue;
      }
      if (response.statusCode < 200 || response.statusCode >= 300) {
        await response.body.dump().catch(() => undefined);
        throw fetchFailed(param, url, `HTTP ${response.statusCode}`);
      }
      return await readImage(response, param, url);
    }
  } catch (error) {
    if (reason === 'client') throw clientClosed();
    if (reason === 'timeout') throw fetchFailed(param, url, `no complete answer within ${timeoutMs} ms`);
    if (error instanceof GatewayError) throw error;
    if (findRefusal(error)) throw notAllowed(param, `${url.hostname} resolves to a refused address: ${findRefusal(error)!.message}`);
    const code = (error as { code?: string }).code ?? (error as { cause?: { code?: string } }).cause?.code;
    throw fetchFailed(param, url, code ? `could not connect (${code})` : 'could not connect');
  } finally {
    clearTimeout(timer);
    options.signal?.removeEventListener('abort', onClientAbort);
  }
}

function get(url: URL, signal: AbortSignal): Promise<PooledResponse> {
  return mediaPool().request(url.toString(), {
    method: 'GET',
    headers: { accept: 'image/png, image/jpeg, image/gif, image/webp', 'accept-encoding': 'identity', 'user-agent': 'gw-image-fetch' },
    signal,
  });
}

/** Reads the body under the size cap (announced length first, then the bytes as they come) and names its type. */
async function readImage(response: PooledResponse, param: string, url: URL): Promise<FetchedImage> {
  const maxBytes = settings().GW_IMAGE_FETCH_MAX_BYTES;
  const announced = Number(headerOf(response.headers, 'content-length'));
  if (Number.isFinite(announced) && announced > maxBytes) {
    drop(response.body);
    throw tooLarge(param, url, maxBytes);
  }
  const parts: Buffer[] = [];
  let size = 0;
  for await (const part of response.body as AsyncIterable<Buffer>) {
    size += part.length;
    if (size > maxBytes) {
      drop(response.body);
      throw tooLarge(param, url, maxBytes);
    }
    parts.push(part);
  }
  const bytes = Buffer.concat(parts, size);
  const declared = headerOf(response.headers, 'content-type');
  const mediaType = imageMediaType(declared, bytes);
  if (!mediaType) {
    throw badRequest(
      'unsupported_image_type',
      `${param}: the image at ${url.hostname} is ${declared ? `'${declared.split(';')[0].trim()}'` : 'of no declared type'}; png, jpeg, gif and webp are supported`,
      param,
    );
  }
  return { mediaType, base64: bytes.toString('base64') };
}

/** The custom-host rules for an image link (or a redirect target); query strings are fine here. */
function checkedUrl(value: string, param: string, verb = 'is'): URL {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw notAllowed(param, 'it is not an absolute URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw notAllowed(param, `it ${verb} a ${url.protocol.replace(':', '')} URL; only http and https are fetched`);
  if (url.username || url.password) throw notAllowed(param, 'it carries credentials');
  const host = normaliseHostname(url.hostname);
  const refusal = isIP(host) ? addressRefusal(host, rules()) : hostnameRefusal(host, rules());
  if (refusal) throw notAllowed(param, `it ${verb} ${host}: ${refusal}`);
  return url;
}

/** Drops a body gw will not read; the abort error destroying it emits is expected, not a crash. */
function drop(body: PooledResponse['body']): void {
  body.on('error', () => undefined);
  body.destroy();
}

function headerOf(headers: PooledResponse['headers'], name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

function findRefusal(error: unknown): RefusedAddressError | undefined {
  let current = error;
  for (let depth = 0; depth < 5 && current instanceof Error; depth++) {
    if (current instanceof RefusedAddressError) return current;
    current = current.cause;
  }
  return undefined;
}

function notAllowed(param: string, why: string): GatewayError {
  return badRequest('image_url_not_allowed', `${param}: gw does not fetch this image link: ${why}`, param);
}

function fetchFailed(param: string, url: URL, why: string): GatewayError {
  return badRequest('image_fetch_failed', `${param}: the image at ${url.hostname} could not be fetched: ${why}`, param);
}

function tooLarge(param: string, url: URL, maxBytes: number): GatewayError {
  return badRequest('image_too_large', `${param}: the image at ${url.hostname} is larger than ${maxBytes} bytes`, param);
}

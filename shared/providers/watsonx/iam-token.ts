import { createHash } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import { GatewayError } from '../../http/errors.js';

/**
 * IBM Cloud API key → IAM access token (`POST /identity/token`, grant `urn:ibm:params:oauth:grant-type:apikey`).
 * A token lives about an hour; each is cached in memory per API key (by its SHA-256, never the key itself) until
 * shortly before the `expiration` IAM states, and concurrent requests share one exchange.
 */
export const IBM_IAM_TOKEN_URL = 'https://iam.cloud.ibm.com/identity/token';
const APIKEY_GRANT = 'urn:ibm:params:oauth:grant-type:apikey';
const EXCHANGE_TIMEOUT_MS = 10_000;
const DEFAULT_LIFETIME_MS = 3_600_000;

export interface IamTokenSourceOptions {
  /** The IAM token endpoint (GW_WATSONX_IAM_URL: a private endpoint, or a test's stand-in). */
  url?: string;
  /** Milliseconds since the epoch; injectable so tests can move time. */
  now?: () => number;
  /** A cached token is replaced once it has less than this left. */
  refreshMarginMs?: number;
}

interface CachedToken {
  accessToken: string;
  expiresAt: number;
}

export class IamTokenSource {
  private readonly url: string;
  private readonly now: () => number;
  private readonly refreshMarginMs: number;
  private readonly tokens = new LRUCache<string, CachedToken>({ max: 256 });
  private readonly inFlight = new Map<string, Promise<CachedToken>>();

  constructor(options: IamTokenSourceOptions = {}) {
    this.url = options.url ?? IBM_IAM_TOKEN_URL;
    this.now = options.now ?? Date.now;
    this.refreshMarginMs = options.refreshMarginMs ?? 5 * 60_000;
  }

  async accessToken(apiKey: string): Promise<string> {
    const cacheKey = createHash('sha256').update(apiKey).digest('hex');
    const cached = this.tokens.get(cacheKey);
    if (cached && this.now() < cached.expiresAt - this.refreshMarginMs) return cached.accessToken;
    let pending = this.inFlight.get(cacheKey);
    if (!pending) {
      pending = this.exchange(apiKey).finally(() => this.inFlight.delete(cacheKey));
      this.inFlight.set(cacheKey, pending);
    }
    const token = await pending;
    this.tokens.set(cacheKey, token);
    return token.accessToken;
  }

  private async exchange(apiKey: string): Promise<CachedToken> {
    let response: Response;
    try {
      response = await fetch(this.url, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
        body: new URLSearchParams({ grant_type: APIKEY_GRANT, apikey: apiKey }).toString(),
        signal: AbortSignal.timeout(EXCHANGE_TIMEOUT_MS),
      });
    } catch {
      throw exchangeFailure(502, 'gw could not reach IBM Cloud IAM to exchange the API key for a token');
    }
    const body = (await response.json().catch(() => undefined)) as Record<string, unknown> | undefined;
    if (!response.ok) {
      // IAM answers a bad key with 400 {errorCode: "BXNIM0415E", errorMessage: "Provided API key could not be found."}.
      const reason = [body?.errorCode, body?.errorMessage].filter((part) => typeof part === 'string').join(': ').slice(0, 300);
      throw exchangeFailure(response.status >= 500 ? 502 : 401, `IBM Cloud IAM refused the API key (HTTP ${response.status}${reason ? `, ${reason}` : ''})`);
    }
    const accessToken = body?.access_token;
    if (typeof accessToken !== 'string' || accessToken === '') throw exchangeFailure(502, 'IBM Cloud IAM answered without an access_token');
    return { accessToken, expiresAt: expiryOf(body!, this.now()) };
  }
}

/** IAM states `expiration` (epoch seconds) and `expires_in` (seconds); the first wins, an hour when neither is there. */
function expiryOf(body: Record<string, unknown>, now: number): number {
  if (typeof body.expiration === 'number' && body.expiration > 0) return body.expiration * 1000;
  if (typeof body.expires_in === 'number' && body.expires_in > 0) return now + body.expires_in * 1000;
  return now + DEFAULT_LIFETIME_MS;
}

function exchangeFailure(status: number, message: string): GatewayError {
  return new GatewayError(status, status === 401 ? 'invalid_api_key' : 'upstream_auth_failed', message, { type: status === 401 ? 'authentication_error' : 'upstream_error', upstream: status !== 401 });
}

/** An IAM access token (a JWT) is sent as it is; anything else is an API key to exchange. */
export function isIamAccessToken(credential: string): boolean {
  return /^eyJ[\w-]+\.[\w-]+\.[\w-]+$/.test(credential);
}

import { createHash } from 'node:crypto';
import { importPKCS8, SignJWT } from 'jose';
import { LRUCache } from 'lru-cache';
import { GatewayError } from '../../http/errors.js';

/**
 * Google service-account JSON → OAuth access token, by the JWT-bearer grant: an RS256 assertion signed with the
 * account's private key is posted to its `token_uri`. Tokens live an hour; each is cached in memory per service
 * account and replaced shortly before it expires, and concurrent requests share one exchange.
 */
export const CLOUD_PLATFORM_SCOPE = 'https://www.googleapis.com/auth/cloud-platform';
const JWT_BEARER_GRANT = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
const ASSERTION_LIFETIME_SECONDS = 3600;
const EXCHANGE_TIMEOUT_MS = 10_000;

export interface ServiceAccount {
  client_email: string;
  private_key: string;
  private_key_id?: string;
  token_uri: string;
}

export interface TokenSourceOptions {
  /** Milliseconds since the epoch; injectable so tests can move time. */
  now?: () => number;
  /** A cached token is replaced once it has less than this left. */
  refreshMarginMs?: number;
  fetch?: typeof fetch;
}

interface CachedToken {
  accessToken: string;
  expiresAt: number;
}

export class ServiceAccountTokenSource {
  private readonly now: () => number;
  private readonly refreshMarginMs: number;
  private readonly fetchImpl: typeof fetch;
  private readonly tokens = new LRUCache<string, CachedToken>({ max: 256 });
  private readonly inFlight = new Map<string, Promise<CachedToken>>();

  constructor(options: TokenSourceOptions = {}) {
    this.now = options.now ?? Date.now;
    this.refreshMarginMs = options.refreshMarginMs ?? 5 * 60_000;
    this.fetchImpl = options.fetch ?? ((...args) => fetch(...args));
  }

  /**
   * An access token for the service account in `json`. `allowedOrigin` is an extra origin the token URI may
   * point at (gw passes the target's already-checked custom host); otherwise only Google's https hosts are used,
   * so a crafted `token_uri` cannot make gw post to an internal address.
   */
  async accessToken(json: string, allowedOrigin?: string): Promise<string> {
    const cacheKey = createHash('sha256').update(json).digest('hex');
    const cached = this.tokens.get(cacheKey);
    if (cached && this.now() < cached.expiresAt - this.refreshMarginMs) return cached.accessToken;
    let pending = this.inFlight.get(cacheKey);
    if (!pending) {
      pending = this.exchange(parseServiceAccount(json, allowedOrigin)).finally(() => this.inFlight.delete(cacheKey));
      this.inFlight.set(cacheKey, pending);
    }
    const token = await pending;
    this.tokens.set(cacheKey, token);
    return token.accessToken;
  }

  private async exchange(account: ServiceAccount): Promise<CachedToken> {
    const issuedAt = Math.floor(this.now() / 1000);
    const assertion = await signAssertion(account, issuedAt);
    let response: Response;
    try {
      response = await this.fetchImpl(account.token_uri, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
        body: new URLSearchParams({ grant_type: JWT_BEARER_GRANT, assertion }).toString(),
        signal: AbortSignal.timeout(EXCHANGE_TIMEOUT_MS),
      });
    } catch (error) {
      throw exchangeFailure(502, 'gw could not reach the service account token endpoint', error);
    }
    const body = (await response.json().catch(() => undefined)) as Record<string, unknown> | undefined;
    if (!response.ok) {
      // Google answers 400/401 with {error: "invalid_grant", error_description: "…"}: the credential is bad.
      const reason = [body?.error, body?.error_description].filter((part) => typeof part === 'string').join(': ').slice(0, 300);
      const status = response.status >= 500 ? 502 : 401;
      throw exchangeFailure(status, `The service account token exchange was refused (HTTP ${response.status}${reason ? `, ${reason}` : ''})`);
    }
    const accessToken = body?.access_token;
    const expiresIn = body?.expires_in;
    if (typeof accessToken !== 'string' || accessToken === '') throw exchangeFailure(502, 'The service account token endpoint answered without an access_token');
    const lifetimeSeconds = typeof expiresIn === 'number' && expiresIn > 0 ? expiresIn : ASSERTION_LIFETIME_SECONDS;
    return { accessToken, expiresAt: this.now() + lifetimeSeconds * 1000 };
  }
}

async function signAssertion(account: ServiceAccount, issuedAt: number): Promise<string> {
  let key: Awaited<ReturnType<typeof importPKCS8>>;
  try {
    key = await importPKCS8(account.private_key, 'RS256');
  } catch (error) {
    throw invalidCredentials('private_key is not a PEM-encoded PKCS#8 RSA private key', error);
  }
  return new SignJWT({ scope: CLOUD_PLATFORM_SCOPE })
    .setProtectedHeader({ alg: 'RS256', typ: 'JWT', ...(account.private_key_id ? { kid: account.private_key_id } : {}) })
    .setIssuer(account.client_email)
    .setAudience(account.token_uri)
    .setIssuedAt(issuedAt)
    .setExpirationTime(issuedAt + ASSERTION_LIFETIME_SECONDS)
    .sign(key);
}

/** Reads and checks the JSON. Messages name the field at fault and never quote the key. */
export function parseServiceAccount(json: string, allowedOrigin?: string): ServiceAccount {
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch {
    throw invalidCredentials('it is not valid JSON');
  }
  const account = parsed as Partial<Record<keyof ServiceAccount | 'type', unknown>> | null;
  if (typeof account !== 'object' || account === null) throw invalidCredentials('it is not a JSON object');
  if (account.type !== undefined && account.type !== 'service_account') throw invalidCredentials('type must be "service_account"');
  for (const field of ['client_email', 'private_key'] as const) {
    if (typeof account[field] !== 'string' || account[field] === '') throw invalidCredentials(`${field} is missing`);
  }
  const tokenUri = typeof account.token_uri === 'string' && account.token_uri !== '' ? account.token_uri : 'https://oauth2.googleapis.com/token';
  if (!isAllowedTokenUri(tokenUri, allowedOrigin)) {
    throw invalidCredentials('token_uri must be an https URL on a googleapis.com host');
  }
  return {
    client_email: account.client_email as string,
    private_key: account.private_key as string,
    private_key_id: typeof account.private_key_id === 'string' ? account.private_key_id : undefined,
    token_uri: tokenUri,
  };
}

function isAllowedTokenUri(value: string, allowedOrigin: string | undefined): boolean {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return false;
  }
  if (url.username || url.password) return false;
  if (allowedOrigin !== undefined && url.origin === new URL(allowedOrigin).origin) return true;
  return url.protocol === 'https:' && (url.hostname === 'googleapis.com' || url.hostname.endsWith('.googleapis.com'));
}

function invalidCredentials(reason: string, cause?: unknown): GatewayError {
  return new GatewayError(401, 'invalid_vertex_credentials', `The Vertex AI service account JSON is not usable: ${reason}`, { type: 'authentication_error', cause });
}

function exchangeFailure(status: 401 | 502, message: string, cause?: unknown): GatewayError {
  return new GatewayError(status, 'vertex_token_exchange_failed', message, { type: status === 401 ? 'authentication_error' : 'upstream_error', cause });
}

/** The process-wide token source: tokens are reused across requests and warm Lambda invocations. */
export const defaultTokenSource = new ServiceAccountTokenSource();

import { GatewayError } from '../http/errors.js';
import type { NeutralRequest } from '../http/types.js';
import { settings } from '../settings.js';
import { AuthenticationError } from './authentication-error.js';
import type { ApiKeyAuthenticator } from './authenticate.js';
import type { JwtAuthenticator } from './jwt.js';
import type { Principal } from './principal.js';

/**
 * Authenticates a control-plane caller: `x-gw-api-key` when present; otherwise `Authorization: Bearer <jwt>`.
 * (The gateway never reads a JWT: its `Authorization` header is the provider's credential.)
 */
export async function authenticateControlPlaneCaller(request: NeutralRequest, apiKeys: ApiKeyAuthenticator, jwts: JwtAuthenticator): Promise<Principal> {
  const apiKey = request.headers['x-gw-api-key'];
  if (apiKey) return requireApiAccess(await apiKeys.authenticate(apiKey));
  const token = bearerToken(request.headers.authorization);
  // SCIM clients (Okta, Entra ID) can only send a bearer token: there, one that is not a JWT is a gw API key.
  if (token && request.path.startsWith('/v1/scim/') && !JWT_SHAPE.test(token)) return requireApiAccess(await apiKeys.authenticate(token));
  if (token) return jwts.authenticate(token);
  throw new AuthenticationError(
    'api_key_missing',
    'Missing credentials: send an x-gw-api-key header (or, for read-only access, Authorization: Bearer <jwt>)',
    { method: 'api_key' },
  );
}

/**
 * `API_ACCESS_ENABLED=OFF` closes the control plane to workspace API keys (programmatic access). What stays open:
 * JWTs (read-only), organisation admin keys (the bootstrap key and those the operator made: without them nobody
 * could administer the deployment or turn the flag back on), and the gateway's own routes, which this does not
 * concern. Checked after authentication, so a wrong key is still a 401.
 */
function requireApiAccess(principal: Principal): Principal {
  if (settings().API_ACCESS_ENABLED || principal.kind === 'admin') return principal;
  throw new GatewayError(403, 'api_access_disabled', 'Control-plane access with workspace API keys is disabled on this deployment (API_ACCESS_ENABLED=OFF); use an organisation admin key or a JWT');
}

/** header.payload.signature, each base64url: what a compact JWS looks like. */
const JWT_SHAPE = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/;

function bearerToken(header: string | undefined): string | undefined {
  const match = header?.match(/^Bearer\s+(\S+)\s*$/i);
  return match?.[1];
}

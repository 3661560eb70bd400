import type { NeutralRequest } from '../http/types.js';
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
  if (apiKey) return apiKeys.authenticate(apiKey);
  const token = bearerToken(request.headers.authorization);
  if (token) return jwts.authenticate(token);
  throw new AuthenticationError(
    'api_key_missing',
    'Missing credentials: send an x-gw-api-key header (or, for read-only access, Authorization: Bearer <jwt>)',
    { method: 'api_key' },
  );
}

function bearerToken(header: string | undefined): string | undefined {
  const match = header?.match(/^Bearer\s+(\S+)\s*$/i);
  return match?.[1];
}

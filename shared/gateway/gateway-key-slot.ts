import { isGatewayKeyShaped } from '../auth/api-key-secrets.js';

/**
 * gw's key where a client puts its own API key. Tools that only let a user set "the API key" (Claude Code's
 * ANTHROPIC_AUTH_TOKEN → `Authorization: Bearer`, ANTHROPIC_API_KEY → `x-api-key`, an OpenAI client's apiKey)
 * can carry gw's key there: when a request has no `x-gw-api-key`, a gw-issued key (`gwk_…`) found in
 * `Authorization: Bearer` or, failing that, `x-api-key` becomes `x-gw-api-key` and leaves that header, so it is
 * never sent on to a provider as a provider key. Anything else in those headers stays the provider key.
 */
export function adoptGatewayKeyFromClientKeyHeaders(headers: Record<string, string>): void {
  if (headers['x-gw-api-key']) return;
  const bearer = /^Bearer\s+(\S+)\s*$/i.exec(headers.authorization ?? '')?.[1];
  if (bearer && isGatewayKeyShaped(bearer)) {
    headers['x-gw-api-key'] = bearer;
    delete headers.authorization;
    return;
  }
  const apiKey = headers['x-api-key']?.trim();
  if (apiKey && isGatewayKeyShaped(apiKey)) {
    headers['x-gw-api-key'] = apiKey;
    delete headers['x-api-key'];
  }
}

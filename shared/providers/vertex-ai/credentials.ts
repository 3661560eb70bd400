import { GatewayError } from '../../http/errors.js';
import type { TargetSettings } from '../types.js';
import { defaultTokenSource, type ServiceAccountTokenSource } from './service-account-token.js';

/**
 * The access token for a Vertex AI call: from a service account (virtual keys and configs supply its JSON),
 * exchanged and cached, or the caller's own `Authorization: Bearer` token passed on as it is.
 */
export async function vertexAccessToken(target: TargetSettings, tokens: ServiceAccountTokenSource = defaultTokenSource): Promise<string | undefined> {
  const serviceAccount = target.vertex?.serviceAccountJson;
  if (serviceAccount) return tokens.accessToken(serviceAccount, target.customHost);
  if (target.apiKey) return target.apiKey;
  // Behind a custom host (a proxy that adds its own credentials) no token may be needed.
  if (target.customHost) return undefined;
  throw new GatewayError(
    401,
    'missing_provider_credentials',
    'Vertex AI needs credentials: send Authorization: Bearer <Google access token>, or use a virtual key holding a service account',
    { type: 'authentication_error', param: 'authorization' },
  );
}

import { GatewayError } from '../http/errors.js';
import { KnownCredentials, maskCredentials } from './redact.js';

/**
 * The credentials each request used, gathered where a target's credential is resolved (resolve-target.ts) and
 * masked by value in everything gw stores or returns about the request (request-record.ts, the error answers).
 * Keyed by the request object, so nothing has to be threaded through and nothing outlives the request.
 */
const byRequest = new WeakMap<object, KnownCredentials>();

/** The request's credentials, to add to. */
export function requestCredentials(request: object): KnownCredentials {
  let known = byRequest.get(request);
  if (!known) byRequest.set(request, (known = new KnownCredentials()));
  return known;
}

/** The request's credentials, or undefined when it used none (then there is nothing to mask). */
export function knownRequestCredentials(request: object): KnownCredentials | undefined {
  return byRequest.get(request);
}

/** A request made on behalf of another (a prompt completion runs a chat completion) masks the same credentials. */
export function shareRequestCredentials(from: object, to: object): void {
  byRequest.set(to, requestCredentials(from));
}

/**
 * The error a client receives, with the request's credentials masked in its message and the provider's body
 * (a provider quoting the key back: "Incorrect API key provided: …"). The error itself when none were used.
 */
export function errorWithoutCredentials(error: GatewayError, request: object): GatewayError {
  const known = byRequest.get(request);
  if (!known || known.size === 0) return error;
  return new GatewayError(error.status, error.code, known.mask(error.message), {
    type: error.type,
    param: error.param,
    providerError: maskCredentials(error.providerError, known),
    upstream: error.upstream,
    headers: error.headers,
    cause: error.cause,
  });
}

/** The credential-bearing fields of a target (an API key or token, AWS keys, a service account's private key). */
export interface CredentialFields {
  apiKey?: string;
  aws?: { accessKeyId?: string; secretAccessKey?: string; sessionToken?: string };
  vertex?: { serviceAccountJson?: string };
}

export function noteTargetCredentials(request: object, target: CredentialFields): void {
  const { apiKey, aws, vertex } = target;
  if (apiKey === undefined && aws?.secretAccessKey === undefined && aws?.sessionToken === undefined && vertex?.serviceAccountJson === undefined) return;
  const known = requestCredentials(request);
  known.add(apiKey);
  known.add(aws?.accessKeyId);
  known.add(aws?.secretAccessKey);
  known.add(aws?.sessionToken);
  if (vertex?.serviceAccountJson !== undefined) {
    for (const value of serviceAccountSecrets(vertex.serviceAccountJson)) known.add(value);
  }
}

/** A service account's private key (as it appears in the JSON and unescaped) and its id. */
function serviceAccountSecrets(json: string): string[] {
  try {
    const account = JSON.parse(json) as { private_key?: unknown; private_key_id?: unknown };
    return [account.private_key, account.private_key_id].filter((value): value is string => typeof value === 'string');
  } catch {
    return [json];
  }
}

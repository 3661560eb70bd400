import { GatewayError } from '../http/errors.js';

/** What is known about a caller whose authentication failed: enough to file the failure, never a secret. */
export interface FailedCaller {
  method: 'api_key' | 'jwt';
  /** Set when the credential was recognised (a revoked or expired key, a signed but invalid token). */
  organisationId?: string;
  workspaceId?: string;
  /** The key id, or `jwt:<sub>`. */
  actorId?: string;
}

/**
 * A 401 that also says who was refused, so the control plane can audit the failure under the right
 * organisation. To everything else it is an ordinary GatewayError with the same status, code and message.
 */
export class AuthenticationError extends GatewayError {
  constructor(
    code: string,
    message: string,
    readonly caller: FailedCaller,
  ) {
    super(401, code, message);
    this.name = 'AuthenticationError';
  }
}

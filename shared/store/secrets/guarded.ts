import { GatewayError } from '../../http/errors.js';
import { logger } from '../../observability/logger.js';
import { SecretStoreError } from './secret-store.js';

/** Runs a secret-store operation; its failures become a 503 that says nothing about the secret. */
export async function guarded<T>(operation: () => Promise<T>): Promise<T> {
  try {
    return await operation();
  } catch (error) {
    if (!(error instanceof SecretStoreError)) throw error;
    logger.error('secret store operation failed', { operation: error.operation, reason: error.message });
    throw new GatewayError(503, 'secret_store_unavailable', 'The secret store could not complete the operation; try again later');
  }
}

import type { ApiKeyRecord } from '../../store/api-key-repository.js';

/**
 * What a use case returns: the key's record as of `now` (its status depends on the time), what its audit event
 * says and, from create and rotate only, the raw key (shown once, never stored).
 */
export interface ApiKeyResult {
  id: string;
  record: ApiKeyRecord;
  now?: number;
  details?: Record<string, unknown>;
  key?: string;
  previousKeyExpiresAt?: string;
}

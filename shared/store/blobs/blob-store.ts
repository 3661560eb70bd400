/**
 * The port for payloads too large for a DynamoDB item (400 KB): request/response bodies of log records,
 * stored conversations, data exports. S3 on AWS, a folder under the data directory locally; both behind this
 * one interface so callers never know which runs.
 */
export interface BlobStore {
  /** Stores `bytes` under `key`, replacing what was there. */
  put(key: string, bytes: Uint8Array | string, contentType?: string): Promise<void>;
  /** The stored bytes, or undefined when nothing is stored under `key`. */
  get(key: string): Promise<Buffer | undefined>;
  /** Removes `key`; removing a missing key is not an error. */
  delete(key: string): Promise<void>;
  /**
   * A URL that downloads `key` without gw credentials for `ttlSeconds` (S3 presigned). Absent on stores that
   * cannot hand out such URLs (the local folder): callers then serve the bytes themselves.
   */
  presignedUrl?(key: string, ttlSeconds: number): Promise<string>;
  /**
   * A URL that stores `key` with one PUT (body of `contentType`) without gw credentials for `ttlSeconds` (S3
   * presigned): bodies larger than a Lambda invocation takes (batch input files) go straight to the bucket. Absent on
   * the local folder: there every upload goes through gw.
   */
  presignedUploadUrl?(key: string, ttlSeconds: number, contentType: string): Promise<string>;
}

export class BlobStoreError extends Error {
  constructor(message: string, readonly operation: 'put' | 'get' | 'delete' | 'presign') {
    super(message);
    this.name = 'BlobStoreError';
  }
}

/**
 * Keys are relative paths of safe segments (`logs/ws_1/abc.json`): no `..`, no leading slash, no empty
 * segment, so a key can never escape the local folder or address another prefix of the bucket.
 */
export function assertBlobKey(key: string): void {
  const valid = key.length > 0 && key.length <= 900 && key.split('/').every((segment) => /^[A-Za-z0-9._=-]+$/.test(segment) && segment !== '.' && segment !== '..');
  if (!valid) throw new BlobStoreError('Invalid blob key', 'put');
}

import { DeleteObjectCommand, GetObjectCommand, NoSuchKey, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { traceAwsClient } from '../../observability/tracer.js';
import { recordedClient } from '../recording/sdk-recording-middleware.js';
import { assertBlobKey, BlobStoreError, type BlobStore } from './blob-store.js';

export interface S3BlobStoreOptions {
  bucket: string;
  region: string;
  /** Another S3 endpoint (MinIO, LocalStack); AWS's own by default. Path-style addressing is used with it. */
  endpoint?: string;
}

/**
 * The BlobStore on AWS: one object per key in the stack's bucket (SSE and lifecycle expiry are set on the
 * bucket by the stack, so nothing here can forget them).
 */
export class S3BlobStore implements BlobStore {
  private readonly client: S3Client;
  private readonly bucket: string;

  constructor(options: S3BlobStoreOptions) {
    this.bucket = options.bucket;
    this.client = traceAwsClient(new S3Client({ region: options.region, endpoint: options.endpoint, forcePathStyle: options.endpoint !== undefined, maxAttempts: 3 }));
    // Test-only: records each command's IAM action and object for the grant check (a no-op unless tests switch it on).
    recordedClient(this.client, 's3');
  }

  async put(key: string, bytes: Uint8Array | string, contentType = 'application/octet-stream'): Promise<void> {
    assertBlobKey(key);
    await this.client.send(new PutObjectCommand({ Bucket: this.bucket, Key: key, Body: bytes, ContentType: contentType }));
  }

  async get(key: string): Promise<Buffer | undefined> {
    assertBlobKey(key);
    try {
      const result = await this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key: key }));
      if (!result.Body) return undefined;
      return Buffer.from(await result.Body.transformToByteArray());
    } catch (error) {
      if (isMissingObject(error)) return undefined;
      throw new BlobStoreError(`Cannot read blob: ${(error as { name?: string }).name ?? 'error'}`, 'get');
    }
  }

  async delete(key: string): Promise<void> {
    assertBlobKey(key);
    await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: key }));
  }

  async presignedUrl(key: string, ttlSeconds: number): Promise<string> {
    assertBlobKey(key);
    return getSignedUrl(this.client, new GetObjectCommand({ Bucket: this.bucket, Key: key }), { expiresIn: ttlSeconds });
  }

  async presignedUploadUrl(key: string, ttlSeconds: number, contentType: string): Promise<string> {
    assertBlobKey(key);
    return getSignedUrl(this.client, new PutObjectCommand({ Bucket: this.bucket, Key: key, ContentType: contentType }), { expiresIn: ttlSeconds });
  }
}

/**
 * S3's ways of saying "no such object": NoSuchKey (GET), NotFound (HEAD, no body), or any 404. (A missing key is
 * 403 AccessDenied instead when the role may not s3:ListBucket the bucket: the stack grants it, see access-grants.ts.)
 */
export function isMissingObject(error: unknown): boolean {
  const { name, $metadata } = (error ?? {}) as { name?: string; $metadata?: { httpStatusCode?: number } };
  return error instanceof NoSuchKey || name === 'NoSuchKey' || name === 'NotFound' || $metadata?.httpStatusCode === 404;
}

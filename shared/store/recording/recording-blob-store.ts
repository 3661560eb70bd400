import type { BlobStore } from '../blobs/blob-store.js';
import { recordAwsOperation } from './aws-operation-recorder.js';

/**
 * Test-only: a BlobStore that records, for each call, the S3 action S3BlobStore issues for it (put: PutObject,
 * get and presigned URLs: GetObject, delete: DeleteObject) on the stack's bucket, then delegates. The tests run the
 * local folder store, so this is how their blob traffic reaches the grant check.
 */
export function recordingBlobStore(inner: BlobStore): BlobStore {
  const record = (action: string, key: string) => recordAwsOperation({ service: 's3', action, resource: `bucket/blobs/${key}` });
  const recording: BlobStore = {
    async put(key, bytes, contentType) {
      record('PutObject', key);
      await inner.put(key, bytes, contentType);
    },
    async get(key) {
      record('GetObject', key);
      return inner.get(key);
    },
    async delete(key) {
      record('DeleteObject', key);
      await inner.delete(key);
    },
  };
  if (inner.presignedUrl) {
    const presign = inner.presignedUrl.bind(inner);
    recording.presignedUrl = async (key, ttlSeconds) => {
      record('GetObject', key);
      return presign(key, ttlSeconds);
    };
  }
  return recording;
}

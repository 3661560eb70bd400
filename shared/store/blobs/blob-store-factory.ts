import { settings } from '../../settings.js';
import { isRecordingAwsOperations } from '../recording/aws-operation-recorder.js';
import { recordingBlobStore } from '../recording/recording-blob-store.js';
import type { BlobStore } from './blob-store.js';
import { LocalFolderBlobStore } from './local-folder-blob-store.js';
import { S3BlobStore } from './s3-blob-store.js';

let store: BlobStore | undefined;

/** The process's BlobStore: S3 when GW_BLOB_BUCKET is set, otherwise the local folder GW_BLOB_DIR. */
export function blobStore(): BlobStore {
  if (store) return store;
  const { GW_BLOB_BUCKET, GW_BLOB_DIR, GW_S3_ENDPOINT, AWS_REGION } = settings();
  store = GW_BLOB_BUCKET ? new S3BlobStore({ bucket: GW_BLOB_BUCKET, region: AWS_REGION, endpoint: GW_S3_ENDPOINT }) : new LocalFolderBlobStore(GW_BLOB_DIR);
  // Test-only: records the S3 calls each blob operation means, for the grant check (a no-op when deployed).
  if (isRecordingAwsOperations()) store = recordingBlobStore(store);
  return store;
}

/** Tests: replace the process's store (undefined: build it from settings again). */
export function setBlobStoreForTesting(replacement: BlobStore | undefined): void {
  store = replacement;
}

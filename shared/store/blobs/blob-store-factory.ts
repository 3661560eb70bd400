import { settings } from '../../settings.js';
import { isRecordingAwsOperations } from '../recording/aws-operation-recorder.js';
import type { BlobStore } from './blob-store.js';
import type { S3BlobStoreOptions } from './s3-blob-store.js';

let store: BlobStore | undefined;

/** The process's BlobStore: S3 when GW_BLOB_BUCKET is set, otherwise the local folder GW_BLOB_DIR. */
export function blobStore(): BlobStore {
  if (store) return store;
  const { GW_BLOB_BUCKET, GW_BLOB_DIR, GW_S3_ENDPOINT, AWS_REGION } = settings();
  if (GW_BLOB_BUCKET) store = s3BlobStoreOnFirstUse({ bucket: GW_BLOB_BUCKET, region: AWS_REGION, endpoint: GW_S3_ENDPOINT });
  // Test-only: the real S3 client against an S3 stand-in serving the same folder, so the recorder on the client sees
  // every S3 call the code makes (the grant check); never when deployed.
  else if (isRecordingAwsOperations()) store = loadedOnFirstUse(() => import('../recording/stand-ins/stores-over-stand-ins.js').then(({ s3BlobStoreOverFolder }) => s3BlobStoreOverFolder(GW_BLOB_DIR, AWS_REGION)));
  // Loaded on first use like the S3 store: a deployed gateway (blobs in S3) never carries the folder store.
  else store = loadedOnFirstUse(() => import('./local-folder-blob-store.js').then(({ LocalFolderBlobStore }) => new LocalFolderBlobStore(GW_BLOB_DIR)));
  return store;
}

/** A store built by its first call; a failed build is tried again next time. */
function loadedOnFirstUse(load: () => Promise<BlobStore>): BlobStore {
  let loading: Promise<BlobStore> | undefined;
  const loaded = (): Promise<BlobStore> =>
    (loading ??= load().catch((error: unknown) => {
      loading = undefined;
      throw error;
    }));
  return {
    put: async (key, bytes, contentType) => (await loaded()).put(key, bytes, contentType),
    get: async (key) => (await loaded()).get(key),
    delete: async (key) => (await loaded()).delete(key),
  };
}

/**
 * The S3 store, its module (and the S3 client, ~100 KiB of a bundle) imported on the first blob operation: most
 * requests store no large body, so a cold start does not load it. A failed import is tried again next time.
 */
export function s3BlobStoreOnFirstUse(options: S3BlobStoreOptions): BlobStore {
  let loading: Promise<BlobStore> | undefined;
  const s3 = (): Promise<BlobStore> =>
    (loading ??= import('./s3-blob-store.js').then(
      ({ S3BlobStore }) => new S3BlobStore(options),
      (error: unknown) => {
        loading = undefined;
        throw error;
      },
    ));
  return {
    put: async (key, bytes, contentType) => (await s3()).put(key, bytes, contentType),
    get: async (key) => (await s3()).get(key),
    delete: async (key) => (await s3()).delete(key),
    // S3BlobStore always presigns.
    presignedUrl: async (key, ttlSeconds) => (await s3()).presignedUrl!(key, ttlSeconds),
    presignedUploadUrl: async (key, ttlSeconds, contentType) => (await s3()).presignedUploadUrl!(key, ttlSeconds, contentType),
  };
}

/** Tests: replace the process's store (undefined: build it from settings again). */
export function setBlobStoreForTesting(replacement: BlobStore | undefined): void {
  store = replacement;
}

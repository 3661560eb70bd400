import type { BlobStore } from '../../blobs/blob-store.js';
import { LocalFolderBlobStore } from '../../blobs/local-folder-blob-store.js';
import type { SecretStore } from '../../secrets/secret-store.js';
import { BLOB_STAND_IN_BUCKET } from '../recorded-operations.js';
import { s3StandIn } from './s3-stand-in.js';
import { secretsManagerStandIn } from './secrets-manager-stand-in.js';
import { serveOnLoopback } from './wire.js';

/**
 * Test-only (while the tests record AWS operations): the stores the AWS deployment uses, with their real SDK clients,
 * talking over loopback to stand-ins that keep the data where the local runtime keeps it (the blob folder, the local
 * secret file store). So every S3 and Secrets Manager call the code makes goes through the recorder on a real
 * client: a new call without a grant fails the grant check, as on AWS it would fail with AccessDenied.
 */

/** S3BlobStore on the S3 stand-in serving `directory` (files laid out as LocalFolderBlobStore lays them out). */
export async function s3BlobStoreOverFolder(directory: string, region: string): Promise<BlobStore> {
  const folder = new LocalFolderBlobStore(directory);
  const { url } = await serveOnLoopback(s3StandIn({ buckets: { [BLOB_STAND_IN_BUCKET]: folder } }), { unref: true });
  const { S3BlobStore } = await import('../../blobs/s3-blob-store.js');
  const s3 = new S3BlobStore({ bucket: BLOB_STAND_IN_BUCKET, region, endpoint: url });
  // No presigned URLs: as with the local folder, the local server serves exports itself.
  return { put: (key, bytes, type) => s3.put(key, bytes, type), get: (key) => s3.get(key), delete: (key) => s3.delete(key) };
}

/** SecretsManagerSecretStore on the Secrets Manager stand-in keeping secrets in `local` (names without `prefix`). */
export async function secretsManagerStoreOver(local: SecretStore, prefix: string, region: string): Promise<SecretStore> {
  const relative = (name: string) => (name.startsWith(prefix) ? name.slice(prefix.length) : name);
  const backing = { get: (name: string) => local.get(relative(name)), put: (name: string, value: string) => local.put(relative(name), value), delete: (name: string) => local.delete(relative(name)) };
  const { url } = await serveOnLoopback(secretsManagerStandIn({ backing, region }), { unref: true });
  const { SecretsManagerSecretStore } = await import('../../secrets/secrets-manager-secret-store.js');
  return new SecretsManagerSecretStore({ region, endpoint: url, prefix });
}

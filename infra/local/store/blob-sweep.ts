import { readdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * The local blob folder (GW_BLOB_DIR without a bucket) and how long its files live. On AWS the bucket's lifecycle
 * rule expires every blob after LOG_RETENTION_DISPLAY days (infra/cdk/constructs/blob-bucket.ts); locally nothing
 * did, so the large request/response bodies of request logs, exports and stored responses piled up forever.
 */
export interface BlobFolderPlan {
  directory: string;
  /** Request-log bodies (`logs/…`): the local log retention (GW_LOCAL_LOG_RETENTION_HOURS). */
  logsMaxAgeSeconds: number;
  /** Everything else (exports, stored responses): the bucket's rule, LOG_RETENTION_DISPLAY days. */
  othersMaxAgeSeconds: number;
}

const LOG_BODIES = 'logs';

/** Deletes the files of the folder older than their prefix allows (by modification time); returns how many. */
export async function sweepBlobFolder(plan: BlobFolderPlan, nowMs: number): Promise<number> {
  let deleted = 0;
  for (const entry of await readdir(plan.directory, { withFileTypes: true }).catch(missingIsEmpty)) {
    const maxAgeSeconds = entry.name === LOG_BODIES ? plan.logsMaxAgeSeconds : plan.othersMaxAgeSeconds;
    deleted += await sweepTree(join(plan.directory, entry.name), entry.isDirectory(), nowMs - maxAgeSeconds * 1000);
  }
  return deleted;
}

async function sweepTree(path: string, isDirectory: boolean, cutoffMs: number): Promise<number> {
  if (!isDirectory) {
    const modified = await stat(path).then((stats) => stats.mtimeMs, () => undefined);
    if (modified === undefined || modified >= cutoffMs) return 0;
    await rm(path, { force: true });
    return 1;
  }
  let deleted = 0;
  for (const entry of await readdir(path, { withFileTypes: true }).catch(missingIsEmpty)) deleted += await sweepTree(join(path, entry.name), entry.isDirectory(), cutoffMs);
  return deleted;
}

function missingIsEmpty(error: NodeJS.ErrnoException): never[] {
  if (error.code === 'ENOENT') return [];
  throw error;
}

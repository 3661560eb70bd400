import { GatewayError } from '../../http/errors.js';
import type { BatchRepository, FileRecord } from '../../store/batch-repository.js';
import { blobStore } from '../../store/blobs/blob-store-factory.js';

/** gw's file ids (repository newTimeOrderedId): anything else is a 404 before the store is asked. */
export const FILE_ID = /^file-[0-9a-z]{25}$/;

export function fileBlobKey(workspaceId: string, fileId: string): string {
  return `batch-files/${workspaceId}/${fileId}.jsonl`;
}

/** Stores a file's bytes, then its record (a record never points at bytes that are not there). */
export async function storeFile(repository: BatchRepository, record: Omit<FileRecord, 'blob_key'>, bytes: Uint8Array): Promise<FileRecord> {
  const stored: FileRecord = Object.assign({ blob_key: fileBlobKey(record.workspace_id, record.id) }, record);
  await blobStore().put(stored.blob_key, bytes, 'application/jsonl');
  await repository.putFile(stored);
  return stored;
}

/** A file of the caller's workspace, or the one 404 (another workspace's id included). */
export async function fileOfWorkspace(repository: BatchRepository, workspaceId: string, id: string): Promise<FileRecord> {
  const record = FILE_ID.test(id) ? await repository.getFile(workspaceId, id) : undefined;
  if (!record) throw new GatewayError(404, 'file_not_found', `No file '${id}' in this workspace`, { param: 'file_id' });
  return record;
}

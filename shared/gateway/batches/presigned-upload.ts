import * as z from 'zod';
import type { Principal } from '../../auth/principal.js';
import { badRequest, GatewayError } from '../../http/errors.js';
import { jsonResponse, type NeutralRequest, type NeutralResponse } from '../../http/types.js';
import { settings } from '../../settings.js';
import { newTimeOrderedId, type BatchRepository, type FileRecord } from '../../store/batch-repository.js';
import { blobStore } from '../../store/blobs/blob-store-factory.js';
import { parseInferenceBody } from '../request-body.js';
import { fileBlobKey } from './file-records.js';
import { parseBatchInput } from './jsonl.js';
import { fileView } from './views.js';

/** How long a presigned upload URL works. */
export const PRESIGNED_UPLOAD_TTL_SECONDS = 900;
/** OpenAI's own limit on a batch input file. */
export const MAX_PRESIGNED_UPLOAD_BYTES = 200 * 1024 * 1024;

export const presignedUploadSchema = z.object({
  filename: z.string().min(1).max(255),
  purpose: z.literal('batch'),
  bytes: z.int().min(1).max(MAX_PRESIGNED_UPLOAD_BYTES),
});

/**
 * `POST /v1/files` with a JSON body `{filename, purpose, bytes}`: a file record in state `uploading` and a URL
 * that stores its bytes straight in the bucket with one PUT, so a file larger than a Lambda invocation takes never
 * passes through the function. gw reads and checks the bytes when the file is first used (`readyFile`). Only where
 * the blob store can presign (S3); the local folder cannot, and locally every upload goes through gw.
 */
export async function startPresignedUpload(request: NeutralRequest, principal: Principal, repository: BatchRepository): Promise<NeutralResponse> {
  const store = blobStore();
  if (!store.presignedUploadUrl) {
    throw badRequest('presigned_upload_unavailable', 'This gw keeps files in a local folder: upload with multipart/form-data (`file`, `purpose`) instead', 'content-type');
  }
  const parsed = presignedUploadSchema.safeParse(parseInferenceBody(request.body, settings().GW_MAX_BODY_BYTES));
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const param = issue.path.map(String).join('.');
    throw badRequest('invalid_body', `${param ? `\`${param}\`: ` : ''}${issue.message}`, param || null);
  }
  const id = newTimeOrderedId('file');
  const record: FileRecord = {
    id,
    workspace_id: principal.workspaceId,
    filename: parsed.data.filename,
    purpose: parsed.data.purpose,
    bytes: parsed.data.bytes,
    created_at: Math.floor(Date.now() / 1000),
    blob_key: fileBlobKey(principal.workspaceId, id),
    status: 'uploading',
  };
  const uploadUrl = await store.presignedUploadUrl(record.blob_key, PRESIGNED_UPLOAD_TTL_SECONDS, 'application/jsonl');
  await repository.putFile(record);
  return jsonResponse(200, Object.assign(fileView(record), { upload_url: uploadUrl, upload_method: 'PUT', upload_headers: { 'content-type': 'application/jsonl' }, upload_expires_at: record.created_at + PRESIGNED_UPLOAD_TTL_SECONDS }));
}

/**
 * A file ready to use: a presigned upload is read once here, checked as an upload through gw would be (its size
 * within what was declared, a batch input line by line), then marked processed. 409 `file_upload_pending` while
 * its bytes are not there yet.
 */
export async function readyFile(repository: BatchRepository, record: FileRecord): Promise<FileRecord> {
  if (record.status !== 'uploading') return record;
  const bytes = await blobStore().get(record.blob_key);
  if (!bytes) throw new GatewayError(409, 'file_upload_pending', `File '${record.id}' has not been uploaded to its upload_url yet`, { param: 'file_id' });
  if (bytes.length > record.bytes) {
    await blobStore().delete(record.blob_key);
    throw badRequest('file_too_large', `File '${record.id}' was declared as ${record.bytes} bytes but ${bytes.length} were uploaded; upload it again`, 'file_id');
  }
  if (record.purpose === 'batch') parseBatchInput(bytes);
  await repository.markFileProcessed(record.workspace_id, record.id, bytes.length);
  const ready: FileRecord = Object.assign({}, record, { bytes: bytes.length });
  delete ready.status;
  return ready;
}

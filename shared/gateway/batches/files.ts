import type { ApiKeyAuthenticator } from '../../auth/authenticate.js';
import { badRequest, GatewayError } from '../../http/errors.js';
import { jsonResponse, type Handler, type NeutralRequest } from '../../http/types.js';
import { settings } from '../../settings.js';
import { BatchRepository, newTimeOrderedId } from '../../store/batch-repository.js';
import { blobStore } from '../../store/blobs/blob-store-factory.js';
import { batchCaller } from './caller.js';
import { FILE_ID, fileOfWorkspace, storeFile } from './file-records.js';
import { readyFile, startPresignedUpload } from './presigned-upload.js';
import { parseBatchInput } from './jsonl.js';
import { fileView, listView } from './views.js';

/** Purposes a client may upload; `batch_output` files are written by gw from a batch's results. */
const UPLOAD_PURPOSES = ['batch'];

/** `/v1/files` in OpenAI's shapes, kept by gw (blob store + main table), scoped to the caller's workspace. */
export function fileHandlers(authenticator: ApiKeyAuthenticator, repository = new BatchRepository()): Record<'upload' | 'list' | 'get' | 'content' | 'remove', Handler> {
  return {
    upload: async (request) => {
      const principal = await batchCaller(request, authenticator);
      // A JSON body asks for a presigned upload instead (files larger than a Lambda invocation takes).
      if (/^application\/json\b/i.test(request.headers['content-type'] ?? '')) return startPresignedUpload(request, principal, repository);
      const { file, filename, purpose } = await readUpload(request);
      // A batch input is checked now, so a bad line is refused at upload rather than hours later by the provider.
      if (purpose === 'batch') parseBatchInput(file);
      const record = await storeFile(repository, { id: newTimeOrderedId('file'), workspace_id: principal.workspaceId, filename, purpose, bytes: file.length, created_at: Math.floor(Date.now() / 1000) }, file);
      return jsonResponse(200, fileView(record));
    },
    list: async (request) => {
      const principal = await batchCaller(request, authenticator);
      const limit = listLimit(request.query.limit, 10_000);
      const after = request.query.after;
      if (after !== undefined && !FILE_ID.test(after)) throw badRequest('invalid_cursor', '`after` must be a file id of this list', 'after');
      const order = request.query.order ?? 'desc';
      if (order !== 'asc' && order !== 'desc') throw badRequest('invalid_order', '`order` must be asc or desc', 'order');
      const page = await repository.listFiles(principal.workspaceId, limit, after, request.query.purpose, order === 'asc');
      return jsonResponse(200, listView(page.items.map(fileView), page.hasMore));
    },
    get: async (request, params) => {
      const principal = await batchCaller(request, authenticator);
      const record = await fileOfWorkspace(repository, principal.workspaceId, params.fileId);
      // A presigned upload shows `uploading` until its bytes are there; then gw checks them on this read.
      const ready = await readyFile(repository, record).catch((error: unknown) => {
        if (error instanceof GatewayError && error.code === 'file_upload_pending') return record;
        throw error;
      });
      return jsonResponse(200, fileView(ready));
    },
    content: async (request, params) => {
      const principal = await batchCaller(request, authenticator);
      const record = await readyFile(repository, await fileOfWorkspace(repository, principal.workspaceId, params.fileId));
      const bytes = await blobStore().get(record.blob_key);
      if (!bytes) throw new GatewayError(404, 'file_not_found', `The content of file '${record.id}' is gone`, { param: 'file_id' });
      return { status: 200, headers: { 'content-type': 'application/jsonl' }, body: bytes };
    },
    remove: async (request, params) => {
      const principal = await batchCaller(request, authenticator);
      const record = await fileOfWorkspace(repository, principal.workspaceId, params.fileId);
      await repository.deleteFile(principal.workspaceId, record.id);
      await blobStore().delete(record.blob_key);
      return jsonResponse(200, { id: record.id, object: 'file', deleted: true });
    },
  };
}

/** OpenAI's upload: multipart/form-data with `file` and `purpose`, within gw's body limit. */
async function readUpload(request: NeutralRequest): Promise<{ file: Buffer; filename: string; purpose: string }> {
  const maxBytes = settings().GW_MAX_BODY_BYTES;
  if (request.body.length > maxBytes) {
    throw new GatewayError(413, 'body_too_large', `The request body is ${request.body.length} bytes; the limit is ${maxBytes} bytes (docs/batches.md: larger files on AWS)`);
  }
  const contentType = request.headers['content-type'];
  if (!contentType || !/^multipart\/form-data\s*;.*\bboundary=/i.test(contentType)) {
    throw badRequest('invalid_content_type', 'POST /v1/files takes multipart/form-data with `file` and `purpose` (the way the OpenAI SDKs send files)');
  }
  let form: FormData;
  try {
    form = await new Response(request.body, { headers: { 'content-type': contentType } }).formData();
  } catch (error) {
    throw badRequest('invalid_multipart', `The multipart/form-data body could not be read: ${(error as Error).message}`);
  }
  const purpose = form.get('purpose');
  if (typeof purpose !== 'string' || !UPLOAD_PURPOSES.includes(purpose)) throw badRequest('invalid_purpose', `purpose must be one of: ${UPLOAD_PURPOSES.join(', ')}`, 'purpose');
  const file = form.get('file');
  if (!(file instanceof Blob)) throw badRequest('missing_file', 'The form needs a file in the `file` field', 'file');
  const filename = (file as File).name || 'upload.jsonl';
  return { file: Buffer.from(await file.arrayBuffer()), filename: filename.slice(0, 255), purpose };
}

/** `?limit=`: a whole number from 1 to `max`; absent means `fallback`. */
export function listLimit(value: string | undefined, fallback: number, max = fallback): number {
  if (value === undefined) return fallback;
  const limit = Number(value);
  if (!Number.isInteger(limit) || limit < 1 || limit > max) throw badRequest('invalid_limit', `limit must be a whole number from 1 to ${max}`, 'limit');
  return limit;
}

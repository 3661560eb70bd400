import * as z from 'zod';
import type { Principal } from '../../auth/principal.js';
import { badRequest, GatewayError } from '../../http/errors.js';
import type { NeutralRequest } from '../../http/types.js';
import { requestLogger } from '../../observability/logger.js';
import { settings } from '../../settings.js';
import { BatchRepository, newTimeOrderedId, type BatchRecord } from '../../store/batch-repository.js';
import { blobStore } from '../../store/blobs/blob-store-factory.js';
import { releaseAdmission } from '../enforcement/settlement.js';
import { parseInferenceBody } from '../request-body.js';
import { resolveBatchTarget } from './caller.js';
import { fileOfWorkspace } from './file-records.js';
import { readyFile } from './presigned-upload.js';
import { parseBatchInput, type BatchInputLine } from './jsonl.js';
import { BATCH_ENDPOINTS } from './providers/types.js';
import { admitBatch, holdingsOf } from './reservation.js';

/** OpenAI's create-batch body, as far as gw reads it. */
export const createBatchSchema = z.object({
  input_file_id: z.string().min(1),
  endpoint: z.enum(BATCH_ENDPOINTS),
  completion_window: z.literal('24h'),
  metadata: z.record(z.string().max(64), z.string().max(512)).optional(),
});

/**
 * `POST /v1/batches`: the input file (of this workspace) checked again line by line, one model for the whole
 * batch (as OpenAI requires), admission reserving the batch's estimate, then the file and the batch sent to the
 * provider. A provider failure gives the reservation back. The reservation is held by the batch record (not the
 * short-lived reservation journal of a single request: a batch runs for up to a day) until its results are read.
 */
export async function createBatch(request: NeutralRequest, principal: Principal, repository: BatchRepository): Promise<BatchRecord> {
  const traceId = request.headers['x-gw-trace-id'] ?? '';
  const parsed = createBatchSchema.safeParse(parseInferenceBody(request.body, settings().GW_MAX_BODY_BYTES));
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const param = issue.path.map(String).join('.');
    throw badRequest('invalid_body', `${param ? `\`${param}\`: ` : ''}${issue.message}`, param || null);
  }
  const body = parsed.data;
  const file = await readyFile(repository, await fileOfWorkspace(repository, principal.workspaceId, body.input_file_id));
  if (file.purpose !== 'batch') throw badRequest('invalid_input_file', `File '${file.id}' was not uploaded with purpose batch`, 'input_file_id');
  const bytes = await blobStore().get(file.blob_key);
  if (!bytes) throw new GatewayError(404, 'file_not_found', `The content of file '${file.id}' is gone`, { param: 'input_file_id' });
  const lines = parseBatchInput(bytes);
  const model = batchModel(lines, body.endpoint);
  const target = await resolveBatchTarget(request, principal);
  if (!target) throw badRequest('missing_provider', 'Name the batch provider: x-gw-provider with Authorization, or x-gw-virtual-key', 'x-gw-provider');
  const submission = { endpoint: body.endpoint, completion_window: body.completion_window, metadata: body.metadata, model };
  target.driver.validate?.(lines, submission);
  const admission = await admitBatch(request, principal, target, lines, model, traceId);
  let providerBatch: Record<string, unknown>;
  try {
    providerBatch = await target.driver.submit(lines, submission, request.signal);
  } catch (error) {
    await releaseAdmission(admission, false, requestLogger(traceId));
    throw error;
  }
  const record: BatchRecord = {
    id: newTimeOrderedId('batch'),
    workspace_id: principal.workspaceId,
    organisation_id: principal.organisationId,
    api_key_id: principal.keyId,
    provider: target.provider,
    provider_batch_id: String(providerBatch.id),
    endpoint: body.endpoint,
    model,
    input_file_id: file.id,
    completion_window: body.completion_window,
    metadata: body.metadata ?? {},
    status: typeof providerBatch.status === 'string' ? providerBatch.status : 'validating',
    created_at: Math.floor(Date.now() / 1000),
    provider_view: providerBatch,
    trace_id: traceId,
  };
  if (target.virtualKeyId !== undefined) record.virtual_key_id = target.virtualKeyId;
  if (admission) record.holdings = holdingsOf(admission);
  try {
    await repository.putBatch(record);
  } catch (error) {
    // Without its record nobody could poll or settle the batch: cancel it at the provider and give the reservation back.
    await target.driver.cancel(record.provider_batch_id).catch(() => undefined);
    await releaseAdmission(admission, true, requestLogger(traceId));
    throw error;
  }
  return record;
}

/** Every line must call the batch's endpoint and one model (the provider's rule, and what the estimate prices). */
function batchModel(lines: readonly BatchInputLine[], endpoint: string): string {
  let model: string | undefined;
  for (const [index, line] of lines.entries()) {
    if (line.url !== endpoint) throw badRequest('invalid_batch_file', `request ${index + 1} (${line.custom_id}) calls ${line.url}, but the batch's endpoint is ${endpoint}`, 'input_file_id');
    const lineModel = line.body.model;
    if (typeof lineModel !== 'string' || lineModel === '') throw badRequest('invalid_batch_file', `request ${index + 1} (${line.custom_id}) names no model`, 'input_file_id');
    if (model !== undefined && lineModel !== model) throw badRequest('batch_mixed_models', `A batch runs one model; request ${index + 1} (${line.custom_id}) names '${lineModel}', the first one '${model}'`, 'input_file_id');
    model = lineModel;
  }
  return model!;
}

import type { ApiKeyAuthenticator } from '../../auth/authenticate.js';
import type { Principal } from '../../auth/principal.js';
import { badRequest, GatewayError } from '../../http/errors.js';
import { jsonResponse, type Handler, type NeutralRequest } from '../../http/types.js';
import { BatchRepository, type BatchRecord } from '../../store/batch-repository.js';
import { createBatch } from './batch-create.js';
import { refreshBatch, takeProviderView } from './batch-results.js';
import { batchCaller, resolveBatchTarget, type BatchTarget } from './caller.js';
import { listLimit } from './files.js';
import { batchView, listView } from './views.js';

/** gw's batch ids (repository newTimeOrderedId): anything else is a 404 before the store is asked. */
const BATCH_ID = /^batch-[0-9a-z]{25}$/;

/** `/v1/batches` in OpenAI's shapes; every batch belongs to the caller's workspace. */
export function batchHandlers(authenticator: ApiKeyAuthenticator, repository = new BatchRepository()): Record<'create' | 'list' | 'get' | 'cancel', Handler> {
  return {
    create: async (request) => {
      const principal = await batchCaller(request, authenticator);
      return jsonResponse(200, batchView(await createBatch(request, principal, repository)));
    },
    list: async (request) => {
      const principal = await batchCaller(request, authenticator);
      const limit = listLimit(request.query.limit, 20, 100);
      const after = request.query.after;
      if (after !== undefined && !BATCH_ID.test(after)) throw badRequest('invalid_cursor', '`after` must be a batch id of this list', 'after');
      // The status each batch had when last read: a list does not call the provider once per batch.
      const page = await repository.listBatches(principal.workspaceId, limit, after);
      return jsonResponse(200, listView(page.items.map(batchView), page.hasMore));
    },
    get: async (request, params) => {
      const principal = await batchCaller(request, authenticator);
      const record = await batchOfWorkspace(repository, principal.workspaceId, params.batchId);
      if (record.settled_at !== undefined) return jsonResponse(200, batchView(record));
      // A poll reads the provider when it can reach it: the caller's provider headers, or the batch's virtual key.
      const target = await providerOf(request, principal, record);
      return jsonResponse(200, batchView(target ? await refreshBatch(record, target, repository, request.signal) : record));
    },
    cancel: async (request, params) => {
      const principal = await batchCaller(request, authenticator);
      const record = await batchOfWorkspace(repository, principal.workspaceId, params.batchId);
      if (record.settled_at !== undefined) throw new GatewayError(409, 'batch_finished', `Batch '${record.id}' has already ended (${record.status})`);
      const target = await providerOf(request, principal, record);
      if (!target) throw badRequest('missing_provider', "Cancelling needs the batch's provider credential: x-gw-provider with Authorization, or x-gw-virtual-key", 'x-gw-provider');
      const providerBatch = await target.driver.cancel(record.provider_batch_id, request.signal);
      return jsonResponse(200, batchView(await takeProviderView(record, providerBatch, target, repository, request.signal)));
    },
  };
}

async function batchOfWorkspace(repository: BatchRepository, workspaceId: string, id: string): Promise<BatchRecord> {
  const record = BATCH_ID.test(id) ? await repository.getBatch(workspaceId, id) : undefined;
  if (!record) throw new GatewayError(404, 'batch_not_found', `No batch '${id}' in this workspace`, { param: 'batch_id' });
  return record;
}

/** The batch's provider, reached with the caller's headers or the batch's virtual key; it must be the batch's own provider. */
async function providerOf(request: NeutralRequest, principal: Principal, record: BatchRecord): Promise<BatchTarget | undefined> {
  const target = await resolveBatchTarget(request, principal, { virtualKeyId: record.virtual_key_id });
  if (target && target.provider !== record.provider) {
    throw badRequest('batch_provider_mismatch', `Batch '${record.id}' runs on ${record.provider}, but the request names ${target.provider}`, 'x-gw-provider');
  }
  return target;
}

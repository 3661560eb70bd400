import { GatewayError } from '../../../http/errors.js';
import type { ProviderAdapter } from '../../../providers/types.js';
import { serialiseBatchInput } from '../jsonl.js';
import { sendBatchCall, sendBatchJson } from '../provider-calls.js';
import type { BatchApi, BatchApiCall, BatchDriver, BatchEndpoint } from './types.js';

/**
 * OpenAI's Files and Batch endpoints at one base, as OpenAI and Azure OpenAI both serve them: `urlOf` places a
 * path (`/files`, `/batches/{id}`) at the provider, `auth` is its credential header.
 */
export function openAIShapedApi(urlOf: (path: string) => string, auth: Record<string, string>, endpointPath: (endpoint: BatchEndpoint) => string): BatchApi {
  const call = (method: BatchApiCall['method'], path: string, extra: Record<string, string> = {}, body?: Uint8Array | string): BatchApiCall => ({
    method,
    url: urlOf(path),
    headers: Object.assign({}, auth, extra),
    body,
  });
  return {
    uploadFile: (body, contentType) => call('POST', '/files', { 'content-type': contentType }, body),
    createBatch: (body) => call('POST', '/batches', { 'content-type': 'application/json' }, JSON.stringify(body)),
    getBatch: (id) => call('GET', `/batches/${encodeURIComponent(id)}`),
    cancelBatch: (id) => call('POST', `/batches/${encodeURIComponent(id)}/cancel`),
    fileContent: (id) => call('GET', `/files/${encodeURIComponent(id)}/content`),
    endpointPath,
  };
}

/** A provider whose batch API is OpenAI's: the input file and the batch are relayed, results read back as they are. */
export function nativeBatchDriver(adapter: ProviderAdapter, api: BatchApi): BatchDriver {
  return {
    async submit(lines, submission, signal) {
      const form = new FormData();
      form.set('purpose', 'batch');
      form.set('file', new Blob([serialiseBatchInput(lines, api.endpointPath)], { type: 'application/jsonl' }), 'batch-input.jsonl');
      const encoded = new Request('http://gw.invalid/', { method: 'POST', body: form });
      const upload = await sendBatchJson(adapter, api.uploadFile(new Uint8Array(await encoded.arrayBuffer()), encoded.headers.get('content-type')!), signal);
      if (typeof upload.id !== 'string') throw new GatewayError(502, 'upstream_invalid_response', "The provider's file upload answered no file id", { type: 'upstream_error', upstream: true });
      const created = await sendBatchJson(
        adapter,
        api.createBatch({ input_file_id: upload.id, endpoint: api.endpointPath(submission.endpoint), completion_window: submission.completion_window, metadata: submission.metadata }),
        signal,
      );
      if (typeof created.id !== 'string') throw new GatewayError(502, 'upstream_invalid_response', "The provider's batch API answered no batch id", { type: 'upstream_error', upstream: true });
      return created;
    },
    retrieve: (id, signal) => sendBatchJson(adapter, api.getBatch(id), signal),
    cancel: (id, signal) => sendBatchJson(adapter, api.cancelBatch(id), signal),
    async results(view, _lines, signal) {
      const read = (id: unknown) => (typeof id === 'string' && id !== '' ? sendBatchCall(adapter, api.fileContent(id), signal) : Promise.resolve(undefined));
      const [output, errors] = await Promise.all([read(view.output_file_id), read(view.error_file_id)]);
      return { output, errors };
    },
  };
}

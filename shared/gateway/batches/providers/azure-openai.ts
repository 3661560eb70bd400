import { badRequest } from '../../../http/errors.js';
import { DEFAULT_AZURE_API_VERSION } from '../../../providers/azure-openai/adapter.js';
import { azureResourceHost } from '../../../providers/azure-openai/resource-host.js';
import type { TargetSettings } from '../../../providers/types.js';
import type { BatchApi, BatchApiCall } from './types.js';

/**
 * Azure OpenAI's batch API lives at the resource, not under a deployment: `{resource}/openai/files` and
 * `/openai/batches?api-version=…`, the key in `api-key`. Its endpoints drop OpenAI's `/v1` (`/chat/completions`),
 * and each line's `model` names a global-batch deployment.
 */
export function azureOpenAIBatchApi(target: TargetSettings): BatchApi {
  const azure = target.azure ?? {};
  if (!target.customHost && !azure.resourceName) {
    throw badRequest('missing_azure_resource', 'Azure OpenAI needs x-gw-azure-resource-name (or x-gw-clouda-resource-name)', 'x-gw-azure-resource-name');
  }
  const apiVersion = azure.apiVersion ?? DEFAULT_AZURE_API_VERSION;
  if (!/^\d{4}-\d{2}-\d{2}(-preview)?$/.test(apiVersion)) {
    throw badRequest('invalid_azure_api_version', 'x-gw-azure-api-version must look like 2024-10-21 or 2025-04-01-preview', 'x-gw-azure-api-version');
  }
  if (!target.apiKey) throw badRequest('missing_provider_credential', 'Batches need the Azure OpenAI key: Authorization: Bearer <key>, or a virtual key', 'authorization');
  const host = (target.customHost ?? azureResourceHost(azure.resourceName!)).replace(/\/+$/, '');
  const auth = { 'api-key': target.apiKey };
  const call = (method: BatchApiCall['method'], path: string, extra: Record<string, string> = {}, body?: Uint8Array | string): BatchApiCall => ({
    method,
    url: `${host}/openai${path}?api-version=${apiVersion}`,
    headers: Object.assign({}, auth, extra),
    body,
  });
  return {
    uploadFile: (body, contentType) => call('POST', '/files', { 'content-type': contentType }, body),
    createBatch: (body) => call('POST', '/batches', { 'content-type': 'application/json' }, JSON.stringify(body)),
    getBatch: (id) => call('GET', `/batches/${encodeURIComponent(id)}`),
    cancelBatch: (id) => call('POST', `/batches/${encodeURIComponent(id)}/cancel`),
    fileContent: (id) => call('GET', `/files/${encodeURIComponent(id)}/content`),
    endpointPath: (endpoint) => endpoint.replace(/^\/v1/, ''),
  };
}

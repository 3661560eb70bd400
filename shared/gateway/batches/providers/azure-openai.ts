import { badRequest } from '../../../http/errors.js';
import { DEFAULT_AZURE_API_VERSION } from '../../../providers/azure-openai/adapter.js';
import { azureResourceHost } from '../../../providers/azure-openai/resource-host.js';
import type { TargetSettings } from '../../../providers/types.js';
import { openAIShapedApi } from './native.js';
import type { BatchApi } from './types.js';

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
  return openAIShapedApi((path) => `${host}/openai${path}?api-version=${apiVersion}`, { 'api-key': target.apiKey }, (endpoint) => endpoint.replace(/^\/v1/, ''));
}

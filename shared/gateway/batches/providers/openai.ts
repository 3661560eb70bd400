import { badRequest } from '../../../http/errors.js';
import { rowBaseUrl } from '../../../providers/openai-compatible/account-host.js';
import { OPENAI_COMPATIBLE_PROVIDERS } from '../../../providers/openai-compatible/catalog.js';
import { joinUrl } from '../../../providers/openai-compatible/adapter.js';
import type { TargetSettings } from '../../../providers/types.js';
import type { BatchApi, BatchApiCall } from './types.js';

const OPENAI = OPENAI_COMPATIBLE_PROVIDERS.find((row) => row.slug === 'openai')!;

/**
 * OpenAI's own Files and Batch API (`{base}/files`, `{base}/batches`), Bearer token; the base is OpenAI's, or
 * the target's custom host (checked like any other: custom-host.ts, stored-credential-host.ts).
 */
export function openAIBatchApi(target: TargetSettings): BatchApi {
  const base = rowBaseUrl(OPENAI, target);
  if (!target.apiKey) throw badRequest('missing_provider_credential', 'Batches need the provider credential: Authorization: Bearer <key>, or a virtual key', 'authorization');
  const auth = { authorization: `Bearer ${target.apiKey}` };
  const call = (method: BatchApiCall['method'], path: string, extra: Record<string, string> = {}, body?: Uint8Array | string): BatchApiCall => ({
    method,
    url: joinUrl(base, path),
    headers: Object.assign({}, auth, extra),
    body,
  });
  return {
    uploadFile: (body, contentType) => call('POST', '/files', { 'content-type': contentType }, body),
    createBatch: (body) => call('POST', '/batches', { 'content-type': 'application/json' }, JSON.stringify(body)),
    getBatch: (id) => call('GET', `/batches/${encodeURIComponent(id)}`),
    cancelBatch: (id) => call('POST', `/batches/${encodeURIComponent(id)}/cancel`),
    fileContent: (id) => call('GET', `/files/${encodeURIComponent(id)}/content`),
    endpointPath: (endpoint) => endpoint,
  };
}

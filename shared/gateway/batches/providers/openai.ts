import { badRequest } from '../../../http/errors.js';
import { rowBaseUrl } from '../../../providers/openai-compatible/account-host.js';
import { OPENAI_COMPATIBLE_PROVIDERS } from '../../../providers/openai-compatible/catalog.js';
import { joinUrl } from '../../../providers/openai-compatible/adapter.js';
import type { TargetSettings } from '../../../providers/types.js';
import { openAIShapedApi } from './native.js';
import type { BatchApi } from './types.js';

const OPENAI = OPENAI_COMPATIBLE_PROVIDERS.find((row) => row.slug === 'openai')!;

/**
 * OpenAI's own Files and Batch API (`{base}/files`, `{base}/batches`), Bearer token; the base is OpenAI's, or
 * the target's custom host (checked like any other: custom-host.ts, stored-credential-host.ts).
 */
export function openAIBatchApi(target: TargetSettings): BatchApi {
  const base = rowBaseUrl(OPENAI, target);
  if (!target.apiKey) throw badRequest('missing_provider_credential', 'Batches need the provider credential: Authorization: Bearer <key>, or a virtual key', 'authorization');
  return openAIShapedApi((path) => joinUrl(base, path), { authorization: `Bearer ${target.apiKey}` }, (endpoint) => endpoint);
}

import { GatewayError } from '../../../http/errors.js';
import type { ProviderAdapter, TargetSettings } from '../../../providers/types.js';
import { azureOpenAIBatchApi } from './azure-openai.js';
import { bedrockBatchDriver } from './bedrock.js';
import { nativeBatchDriver } from './native.js';
import { openAIBatchApi } from './openai.js';
import type { BatchApi, BatchDriver } from './types.js';

/** Providers whose own batch API speaks OpenAI's Files and Batch shapes: gw relays to them natively. */
const NATIVE: Record<string, (target: TargetSettings) => BatchApi> = {
  openai: openAIBatchApi,
  'azure-openai': azureOpenAIBatchApi,
};

/** Providers whose batch service has another shape: gw translates OpenAI's batch to it. */
const TRANSLATED: Record<string, (adapter: ProviderAdapter, target: TargetSettings, viaVirtualKey: boolean) => BatchDriver> = {
  bedrock: bedrockBatchDriver,
};

/**
 * Providers with a batch service gw does not translate to yet, and why (docs/batches.md, "Providers").
 */
const REFUSED: Record<string, string> = {
  'vertex-ai':
    "Vertex AI batch prediction (batchPredictionJobs) reads from and writes to the customer's Cloud Storage or BigQuery; gw does not translate OpenAI batches to it yet. Use Vertex AI's API directly, or send the requests one by one through gw",
};

/** The batch service of a resolved target's provider, or a 400 naming the providers that have one. */
export function batchDriverFor(provider: string, adapter: ProviderAdapter, target: TargetSettings, viaVirtualKey: boolean): BatchDriver {
  const native = NATIVE[provider];
  if (native) return nativeBatchDriver(adapter, native(target));
  const translated = TRANSLATED[provider];
  if (translated) return translated(adapter, target, viaVirtualKey);
  const reason = REFUSED[provider] ?? `Provider '${provider}' has no batch API gw can use`;
  const served = [...Object.keys(NATIVE), ...Object.keys(TRANSLATED)].join(', ');
  throw new GatewayError(400, 'batches_unsupported_provider', `${reason}. Providers with batches through gw: ${served}`, { param: 'x-gw-provider' });
}

import { GatewayError } from '../../../http/errors.js';
import type { ProviderAdapter, TargetSettings } from '../../../providers/types.js';
import { azureOpenAIBatchApi } from './azure-openai.js';
import { bedrockBatchDriver } from './bedrock.js';
import { nativeBatchDriver } from './native.js';
import { openAIBatchApi } from './openai.js';
import type { BatchApi, BatchDriver, BatchSettingsStore } from './types.js';
import { vertexBatchDriver } from './vertex-ai.js';

/** Providers whose own batch API speaks OpenAI's Files and Batch shapes: gw relays to them natively. */
const NATIVE: Record<string, (target: TargetSettings) => BatchApi> = {
  openai: openAIBatchApi,
  'azure-openai': azureOpenAIBatchApi,
};

/** Providers whose batch service has another shape: gw translates OpenAI's batch to it. */
const TRANSLATED: Record<string, (adapter: ProviderAdapter, target: TargetSettings, storedIn: BatchSettingsStore) => BatchDriver> = {
  bedrock: bedrockBatchDriver,
  'vertex-ai': vertexBatchDriver,
};

/** The batch service of a resolved target's provider, or a 400 naming the providers that have one. */
/**
 * `storedIn`: where the target's stored credential (and so its batch settings) comes from, for the errors that
 * name a missing setting; undefined when the caller sent its own credential (the settings are then headers).
 */
export function batchDriverFor(provider: string, adapter: ProviderAdapter, target: TargetSettings, storedIn: BatchSettingsStore): BatchDriver {
  const native = NATIVE[provider];
  if (native) return nativeBatchDriver(adapter, native(target));
  const translated = TRANSLATED[provider];
  if (translated) return translated(adapter, target, storedIn);
  const served = [...Object.keys(NATIVE), ...Object.keys(TRANSLATED)].join(', ');
  throw new GatewayError(400, 'batches_unsupported_provider', `Provider '${provider}' has no batch API gw can use. Providers with batches through gw: ${served}`, { param: 'x-gw-provider' });
}

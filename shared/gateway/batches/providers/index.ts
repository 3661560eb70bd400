import { GatewayError } from '../../../http/errors.js';
import type { TargetSettings } from '../../../providers/types.js';
import { azureOpenAIBatchApi } from './azure-openai.js';
import { openAIBatchApi } from './openai.js';
import type { BatchApi } from './types.js';

/** Providers whose own batch API speaks OpenAI's Files and Batch shapes: gw relays to them natively. */
const NATIVE: Record<string, (target: TargetSettings) => BatchApi> = {
  openai: openAIBatchApi,
  'azure-openai': azureOpenAIBatchApi,
};

/**
 * Providers with a batch service of another shape, and why gw refuses it for now: their jobs read from and
 * write to the customer's own bucket under a service role the customer grants, which gw has no setting for yet
 * (docs/batches.md, "Bedrock and Vertex AI").
 */
const REFUSED: Record<string, string> = {
  bedrock:
    "Bedrock batch inference (CreateModelInvocationJob) reads its input from and writes its output to the customer's S3 bucket under an IAM service role; gw does not translate OpenAI batches to it yet. Use Bedrock's API directly, or send the requests one by one through gw",
  'vertex-ai':
    "Vertex AI batch prediction (batchPredictionJobs) reads from and writes to the customer's Cloud Storage or BigQuery; gw does not translate OpenAI batches to it yet. Use Vertex AI's API directly, or send the requests one by one through gw",
};

/** The batch API of a resolved target's provider, or a 400 naming the providers that have one. */
export function batchApiFor(provider: string, target: TargetSettings): BatchApi {
  const native = NATIVE[provider];
  if (native) return native(target);
  const reason = REFUSED[provider] ?? `Provider '${provider}' has no batch API gw can use`;
  throw new GatewayError(400, 'batches_unsupported_provider', `${reason}. Providers with batches through gw: ${Object.keys(NATIVE).join(', ')}`, { param: 'x-gw-provider' });
}

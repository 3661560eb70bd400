import { badRequest } from '../../http/errors.js';
import { summariseOpenAIStyleError } from '../openai-compatible/error-summary.js';
import { OpenAISseTranslator } from '../openai-compatible/stream.js';
import { azureResourceHost } from './resource-host.js';
import { ENDPOINT_PATHS, type AdapterInput, type ProviderAdapter, type TargetSettings, type UpstreamCall } from '../types.js';

/** The GA API version used when the caller names none. */
export const DEFAULT_AZURE_API_VERSION = '2024-10-21';
// `stream_options.include_usage` exists from this API version on; older versions reject unknown fields.
const STREAM_USAGE_SINCE = '2024-09-01';

/**
 * Azure OpenAI speaks OpenAI's wire format under a per-deployment URL, with the key in `api-key`.
 * Resource, deployment and API version come from `x-gw-azure-*` (or the spec's `x-gw-clouda-*`) headers.
 */
export const azureOpenAIAdapter: ProviderAdapter = {
  slug: 'azure-openai',
  aliases: ['clouda', 'azure'],
  endpoints: ['chat', 'completions', 'embeddings'],
  buildCall(input: AdapterInput): UpstreamCall {
    const url = azureDeploymentUrl(input.target, ENDPOINT_PATHS[input.endpoint]);
    const apiVersion = input.target.azure?.apiVersion ?? DEFAULT_AZURE_API_VERSION;

    const body = { ...input.body };
    if (input.stream && apiVersion >= STREAM_USAGE_SINCE) {
      const options = typeof body.stream_options === 'object' && body.stream_options !== null ? body.stream_options : {};
      body.stream_options = { ...options, include_usage: true };
    }
    const headers: Record<string, string> = { ...input.forwardHeaders, 'content-type': 'application/json' };
    if (input.stream) headers.accept = 'text/event-stream';
    if (input.target.apiKey) headers['api-key'] = input.target.apiKey;
    return { url, headers, body: JSON.stringify(body) };
  },
  toOpenAIError: summariseOpenAIStyleError,
  createStreamTranslator: () => new OpenAISseTranslator(),
};

/**
 * `{host}/openai/deployments/{deployment}{path}?api-version=…` for a target; throws a 400 naming the missing
 * x-gw-azure-* header. Shared by the chat adapter and the pass-through endpoints (passthrough.ts).
 */
export function azureDeploymentUrl(target: TargetSettings, path: string): string {
  const azure = target.azure ?? {};
  const deployment = azure.deploymentId;
  if (!deployment) throw badRequest('missing_azure_deployment', 'Azure OpenAI needs x-gw-azure-deployment-id (or x-gw-clouda-deployment-id)', 'x-gw-azure-deployment-id');
  if (!target.customHost && !azure.resourceName) {
    throw badRequest('missing_azure_resource', 'Azure OpenAI needs x-gw-azure-resource-name (or x-gw-clouda-resource-name)', 'x-gw-azure-resource-name');
  }
  const apiVersion = azure.apiVersion ?? DEFAULT_AZURE_API_VERSION;
  if (!/^\d{4}-\d{2}-\d{2}(-preview)?$/.test(apiVersion)) {
    throw badRequest('invalid_azure_api_version', 'x-gw-azure-api-version must look like 2024-10-21 or 2025-04-01-preview', 'x-gw-azure-api-version');
  }
  const host = target.customHost ?? azureResourceHost(azure.resourceName!);
  return `${host.replace(/\/+$/, '')}/openai/deployments/${encodeURIComponent(deployment)}${path}?api-version=${apiVersion}`;
}

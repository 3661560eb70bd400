import type { PassthroughInput, PassthroughSupport } from '../passthrough-types.js';
import type { UpstreamCall } from '../types.js';
import { azureDeploymentUrl } from './adapter.js';

/**
 * Azure OpenAI serves images and audio under the deployment's URL, key in `api-key`
 * (`/openai/deployments/{deployment}/audio/transcriptions?api-version=…`). It has no moderations endpoint
 * (content filtering is built into each deployment) and no rerank.
 */
export const azureOpenAIPassthrough: PassthroughSupport = {
  endpoints: ['images/generations', 'images/edits', 'audio/speech', 'audio/transcriptions', 'audio/translations'],
  buildCall(input: PassthroughInput): UpstreamCall {
    const url = azureDeploymentUrl(input.target, `/${input.endpoint}`);
    const headers: Record<string, string> = { ...input.forwardHeaders, 'content-type': input.contentType };
    if (input.target.apiKey) headers['api-key'] = input.target.apiKey;
    return { url, headers, body: input.body };
  },
};

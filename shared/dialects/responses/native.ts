import { badRequest } from '../../http/errors.js';
import { isRecord } from '../../providers/common/json-guards.js';
import { summariseOpenAIStyleError } from '../../providers/openai-compatible/error-summary.js';
import type { UpstreamCall } from '../../providers/types.js';
import { PassThroughStreamTranslator } from '../native-stream.js';
import { namedEvent } from '../sse.js';
import type { NativeCallInput, NativeStreamTranslator, RelayedNativeStream } from '../types.js';
import { canonicalUsageFromResponses } from './response.js';
import { azureResourceHost } from '../../providers/azure-openai/resource-host.js';

const OPENAI_BASE_URL = 'https://api.openai.com/v1';

/**
 * The client's Responses body sent to OpenAI or Azure OpenAI as it is (built-in tools, reasoning items and
 * `include` kept). gw keeps the conversation state itself, so `previous_response_id` (already expanded into
 * `input` by gw) is not sent, and the provider is asked not to store a second copy.
 */
export function buildNativeResponsesCall(input: NativeCallInput): UpstreamCall {
  const { previous_response_id: _expanded, ...body } = input.body;
  body.store = false;
  body.stream = input.stream;
  const headers: Record<string, string> = { ...input.forwardHeaders, 'content-type': 'application/json' };
  if (input.stream) headers.accept = 'text/event-stream';
  if (input.provider === 'azure-openai') {
    const azure = input.target.azure ?? {};
    if (!input.target.customHost && !azure.resourceName) {
      throw badRequest('missing_azure_resource', 'Azure OpenAI needs x-gw-azure-resource-name (or x-gw-clouda-resource-name)', 'x-gw-azure-resource-name');
    }
    // Azure's v1 Responses route takes the deployment name as the model.
    if (azure.deploymentId) body.model = azure.deploymentId;
    const host = (input.target.customHost ?? azureResourceHost(azure.resourceName!)).replace(/\/+$/, '');
    if (input.target.apiKey) headers['api-key'] = input.target.apiKey;
    return { url: `${host}/openai/v1/responses`, headers, body: JSON.stringify(body) };
  }
  if (input.target.apiKey) headers.authorization = `Bearer ${input.target.apiKey}`;
  const base = (input.target.customHost ?? OPENAI_BASE_URL).replace(/\/+$/, '');
  return { url: `${base}/responses`, headers, body: JSON.stringify(body) };
}

const HELD_EVENTS = new Set(['response.created', 'response.in_progress', 'response.queued']);
const END_EVENTS = new Set(['response.completed', 'response.incomplete']);

export function createNativeResponsesStream(): NativeStreamTranslator {
  return new PassThroughStreamTranslator({
    // Only Responses events commit the stream: a 200 of foreign events (a chat completion stream) ends as a 502.
    isContent: (type) => type.startsWith('response.') && !HELD_EVENTS.has(type),
    isEnd: (type) => END_EVENTS.has(type),
    errorOf: (event) => {
      if (event.type === 'error') return { status: 502, error: { ...summariseOpenAIStyleError(502, { error: event }), type: 'upstream_error' } };
      if (event.type === 'response.failed') {
        const response = isRecord(event.response) ? event.response : {};
        return { status: 502, error: { ...summariseOpenAIStyleError(502, { error: response.error ?? { message: 'The response failed' } }), type: 'upstream_error' } };
      }
      return undefined;
    },
    usage: (event, previous) => {
      if (!END_EVENTS.has(String(event.type)) || !isRecord(event.response)) return previous;
      return canonicalUsageFromResponses(event.response.usage) ?? previous;
    },
  });
}

export function nativeResponseUsage(response: Record<string, unknown>): Record<string, unknown> | undefined {
  return canonicalUsageFromResponses(response.usage);
}

/**
 * A native Responses stream that failed after it was committed ends as docs/clients.md promises and OpenAI's own
 * streams end: an `error` event, then `response.failed` carrying the Response the stream started, both numbered
 * on from the last `sequence_number` the client saw (SDKs that check the order would otherwise drop them).
 */
export function nativeResponsesStreamError(body: Record<string, unknown>, relayed: RelayedNativeStream): Uint8Array[] {
  const error = isRecord(body.error) ? body.error : {};
  const code = typeof error.code === 'string' ? error.code : 'server_error';
  const message = typeof error.message === 'string' ? error.message : 'The stream failed';
  let sequence = (relayed.lastSequence ?? -1) + 1;
  const response = { ...(relayed.response ?? { object: 'response' }), status: 'failed', error: { code, message } };
  return [
    namedEvent('error', { type: 'error', sequence_number: sequence++, code, message, param: null }),
    namedEvent('response.failed', { type: 'response.failed', sequence_number: sequence, response }),
  ];
}

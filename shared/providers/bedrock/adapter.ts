import { badRequest } from '../../http/errors.js';
import type { AdapterInput, ProviderAdapter, ProviderErrorSummary, StreamTranslator, UpstreamCall, UpstreamHeaders } from '../types.js';
import { loadTokenEstimator } from '../common/token-estimate.js';
import { authoriseCall, bedrockRuntimeBase, readBedrockAuth, type BedrockAuth } from './auth.js';
import { converseToChatCompletion } from './chat-response.js';
import { toConverseRequest } from './chat-request.js';
import { embeddingFamilyOf, toBedrockEmbeddingBodies, toOpenAIEmbeddings } from './embeddings.js';
import { summariseBedrockError } from './errors.js';
import { withImageLinksFetched } from './image-links.js';
import { invokeChatFamilyOf, invokeChatToCompletion, streamsNatively, toInvokeChatBody } from './invoke-chat.js';
import { CohereCommandStreamTranslator, WholeAnswerReplayTranslator } from './invoke-stream.js';
import { ConverseStreamTranslator } from './stream.js';

/** Titan embeds one text per call: a list fans out into this many InvokeModel calls at a time. */
const TITAN_FAN_OUT_CONCURRENCY = 8;
/** OpenAI's own limit on `input` items; a longer list is a 400 before any call. */
const MAX_EMBEDDING_INPUTS = 2048;

/**
 * Amazon Bedrock (the spec's `cloudc`). Chat goes through Converse / ConverseStream, except for the text models
 * Converse does not chat with (invoke-chat.ts), which go through InvokeModel / InvokeModelWithResponseStream;
 * embeddings through InvokeModel with the Titan or Cohere body. Calls are SigV4-signed (service `bedrock`).
 */
export const bedrockAdapter: ProviderAdapter = {
  slug: 'bedrock',
  aliases: ['cloudc'],
  endpoints: ['chat', 'embeddings'],

  /**
   * Converse takes image bytes only: image links are fetched by the gateway before the request is built. Missing
   * credentials are refused first, so a request that cannot be sent fetches nothing.
   */
  async prepare(input, services) {
    readBedrockAuth(input.target);
    return withImageLinksFetched(input, services.fetchImage);
  },

  async buildCall(input: AdapterInput): Promise<UpstreamCall> {
    const auth = readBedrockAuth(input.target);
    const model = String(input.body.model);
    if (input.endpoint === 'embeddings') {
      const family = embeddingFamilyOf(model);
      const bodies = toBedrockEmbeddingBodies(input, family);
      if (bodies.length > MAX_EMBEDDING_INPUTS) throw badRequest('invalid_input', `\`input\` holds ${bodies.length} texts; at most ${MAX_EMBEDDING_INPUTS} are accepted`, 'input');
      // Cohere's answer carries no token count: the estimator must be ready when the answer is translated.
      if (family === 'cohere') await loadTokenEstimator();
      const calls = await Promise.all(bodies.map((payload) => signedCall(input, auth, 'invoke', payload, 'application/json')));
      return calls.length === 1 ? calls[0] : { ...calls[0], fanOut: { calls, concurrency: TITAN_FAN_OUT_CONCURRENCY } };
    }
    const invokeFamily = invokeChatFamilyOf(model);
    if (invokeFamily) {
      const streamed = input.stream && streamsNatively(invokeFamily);
      const operation = streamed ? 'invoke-with-response-stream' : 'invoke';
      return signedCall(input, auth, operation, toInvokeChatBody(input, invokeFamily), streamed ? 'application/vnd.amazon.eventstream' : 'application/json');
    }
    const payload = toConverseRequest(input).request;
    return signedCall(input, auth, input.stream ? 'converse-stream' : 'converse', payload, input.stream ? 'application/vnd.amazon.eventstream' : 'application/json');
  },

  toOpenAIResponse(input: AdapterInput, providerBody: unknown, headers?: UpstreamHeaders): Record<string, unknown> {
    const model = String(input.body.model);
    if (input.endpoint === 'embeddings') return toOpenAIEmbeddings(input, embeddingFamilyOf(model), providerBody);
    const invokeFamily = invokeChatFamilyOf(model);
    if (invokeFamily) return invokeChatToCompletion(invokeFamily, providerBody, model, headers);
    return converseToChatCompletion(providerBody, model, usesLegacyFunctions(input));
  },

  toOpenAIError(status: number, providerBody: unknown, headers?: UpstreamHeaders): ProviderErrorSummary {
    return summariseBedrockError(status, providerBody, headers);
  },

  createStreamTranslator(input: AdapterInput): StreamTranslator {
    const model = String(input.body.model);
    const invokeFamily = invokeChatFamilyOf(model);
    if (invokeFamily === 'cohere-command') return new CohereCommandStreamTranslator(model);
    if (invokeFamily === 'ai21-jurassic') return new WholeAnswerReplayTranslator(model);
    return new ConverseStreamTranslator(model, usesLegacyFunctions(input));
  },
};

/** One signed call to `{base}/model/{model id}/{operation}`. */
async function signedCall(input: AdapterInput, auth: BedrockAuth, operation: string, payload: object, accept: string): Promise<UpstreamCall> {
  // The model id is one path segment: `:` in `…-v1:0` and `/` in ARNs are percent-encoded.
  const url = `${bedrockRuntimeBase(input.target, auth.region)}/model/${encodeURIComponent(String(input.body.model))}/${operation}`;
  const body = JSON.stringify(payload);
  const headers: Record<string, string> = { ...input.forwardHeaders, 'content-type': 'application/json', accept };
  return { url, method: 'POST', headers: await authoriseCall(auth, { url, headers, body }), body };
}

/** A request that declared legacy `functions` (and no `tools`) gets its answer in the legacy shape. */
function usesLegacyFunctions(input: AdapterInput): boolean {
  return Array.isArray(input.body.functions) && (input.body.tools === undefined || input.body.tools === null);
}

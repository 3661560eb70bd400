import type { AdapterInput, ProviderAdapter, UpstreamCall } from '../types.js';
import { modelRoute, REPLICATE_API_BASE_URL, toPredictionBody } from './request.js';
import { PredictionStreamTranslator, summariseReplicateError, toChatCompletion } from './response.js';

/** How long Replicate holds a prediction request open (`Prefer: wait`, at most 60 s) before answering it as running. */
const WAIT_SECONDS = 60;

/**
 * Replicate's predictions API for chat: an official model (`owner/name`) at `/v1/models/{owner}/{name}/predictions`,
 * a pinned version at `/v1/predictions`, both answered synchronously with `Prefer: wait`.
 */
export const replicateAdapter: ProviderAdapter = {
  slug: 'replicate',
  aliases: [],
  endpoints: ['chat'],

  buildCall(input: AdapterInput): UpstreamCall {
    const body = toPredictionBody(input);
    const base = (input.target.customHost ?? REPLICATE_API_BASE_URL).replace(/\/+$/, '').replace(/\/v1$/, '');
    const headers: Record<string, string> = { ...input.forwardHeaders, 'content-type': 'application/json', accept: 'application/json', prefer: `wait=${WAIT_SECONDS}` };
    if (input.target.apiKey) headers.authorization = `Bearer ${input.target.apiKey}`;
    return { url: `${base}/v1/${modelRoute(input.body.model).path}`, headers, body: JSON.stringify(body) };
  },

  toOpenAIResponse: (input: AdapterInput, providerBody: unknown) => toChatCompletion(input.body.model, providerBody),

  toOpenAIError: summariseReplicateError,

  createStreamTranslator: (input: AdapterInput) => new PredictionStreamTranslator(String(input.body.model)),
};

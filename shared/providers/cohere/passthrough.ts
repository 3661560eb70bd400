import type { PassthroughInput, PassthroughSupport } from '../passthrough-types.js';
import type { UpstreamCall } from '../types.js';
import { cohereHeaders, cohereUrl } from './http.js';

/**
 * gw's `/v1/rerank` already speaks Cohere's rerank shape (`model`, `query`, `documents`, `top_n` in; `results`
 * with `index` and `relevance_score` out), so the bytes go to `/v2/rerank` unchanged with Cohere's auth.
 */
export const coherePassthrough: PassthroughSupport = {
  endpoints: ['rerank'],
  buildCall(input: PassthroughInput): UpstreamCall {
    return { url: cohereUrl(input.target.customHost, 'rerank'), headers: cohereHeaders(input, input.contentType), body: input.body };
  },
};

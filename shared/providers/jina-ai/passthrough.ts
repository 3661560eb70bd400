import type { PassthroughInput, PassthroughSupport } from '../passthrough-types.js';
import type { UpstreamCall } from '../types.js';
import { jinaHeaders, jinaUrl } from './http.js';

/** `/v1/rerank` to Jina's `/v1/rerank`: Jina speaks Cohere's rerank shape in and out, so the bytes go unchanged. */
export const jinaAIPassthrough: PassthroughSupport = {
  endpoints: ['rerank'],
  buildCall(input: PassthroughInput): UpstreamCall {
    return { url: jinaUrl(input.target.customHost, 'rerank'), headers: jinaHeaders(input, input.contentType), body: input.body };
  },
};

import { badRequest } from '../../http/errors.js';
import type { PassthroughInput, PassthroughSupport } from '../passthrough-types.js';
import type { UpstreamCall } from '../types.js';
import { voyageHeaders, voyageUrl } from './http.js';

/**
 * `/v1/rerank` to Voyage's `/v1/rerank`. gw's rerank body is Cohere's; Voyage names the result count `top_k`,
 * so `top_n` is renamed on the way out. The answer is relayed as Voyage sends it (`data` with `index` and
 * `relevance_score`, docs/providers/voyage-ai.md).
 */
export const voyageAIPassthrough: PassthroughSupport = {
  endpoints: ['rerank'],
  buildCall(input: PassthroughInput): UpstreamCall {
    let body: Record<string, unknown>;
    try {
      body = JSON.parse(Buffer.from(input.body).toString('utf8')) as Record<string, unknown>;
    } catch {
      throw badRequest('invalid_request', 'the rerank body must be JSON');
    }
    if (body.top_n !== undefined) {
      body.top_k = body.top_n;
      delete body.top_n;
    }
    return { url: voyageUrl(input.target.customHost, 'rerank'), headers: voyageHeaders(input), body: JSON.stringify(body) };
  },
};

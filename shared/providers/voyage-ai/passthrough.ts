import { badRequest, GatewayError } from '../../http/errors.js';
import { isRecord } from '../common/json-guards.js';
import type { PassthroughAnswer, PassthroughInput, PassthroughSupport } from '../passthrough-types.js';
import type { UpstreamCall } from '../types.js';
import { voyageHeaders, voyageUrl } from './http.js';

/**
 * `/v1/rerank` to Voyage's `/v1/rerank`. gw's rerank body is Cohere's; Voyage names the result count `top_k`,
 * so `top_n` is renamed on the way out. Voyage answers `data` (with `index`, `relevance_score` and, asked with
 * `return_documents`, the document's text); gw answers the same shape as for Cohere and Jina AI: `results`, a
 * returned document as `{text}`.
 */
export const voyageAIPassthrough: PassthroughSupport = {
  endpoints: ['rerank'],
  translates: true,
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

  translateAnswer(answer: PassthroughAnswer) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(Buffer.from(answer.body).toString('utf8'));
    } catch {
      throw new GatewayError(502, 'upstream_invalid_response', 'Voyage AI answered its rerank with a body that is not JSON', { type: 'upstream_error', upstream: true });
    }
    return { body: JSON.stringify(toRerankResults(parsed)), contentType: 'application/json' };
  },
};

/** Voyage's `{object, data, model, usage}` → gw's rerank answer `{model, results, usage}`. */
export function toRerankResults(answer: unknown): Record<string, unknown> {
  const body = isRecord(answer) ? answer : {};
  const rows = Array.isArray(body.data) ? body.data.filter(isRecord) : [];
  const results = rows.map((row) => {
    const result: Record<string, unknown> = { index: row.index, relevance_score: row.relevance_score };
    if (typeof row.document === 'string') result.document = { text: row.document };
    return result;
  });
  return { model: body.model, results, ...(isRecord(body.usage) ? { usage: body.usage } : {}) };
}

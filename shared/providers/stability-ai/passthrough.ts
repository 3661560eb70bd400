import { jsonOrUndefined } from '../common/answer-json.js';
import type { PassthroughAnswer, PassthroughInput, PassthroughSupport } from '../passthrough-types.js';
import type { UpstreamCall } from '../types.js';
import { stabilityUrl } from './http.js';
import { toOpenAIImages, toStabilityImageRequest } from './images.js';

/**
 * `/v1/images/generations` to Stability AI: gw's JSON (OpenAI's shape) becomes the multipart form Stability takes,
 * and its JSON answer OpenAI's `data[].b64_json`.
 */
export const stabilityAIPassthrough: PassthroughSupport = {
  endpoints: ['images/generations'],
  translates: true,

  async prepare(input: PassthroughInput): Promise<PassthroughInput> {
    const { form } = toStabilityImageRequest(input.fields ?? {});
    const encoded = new Request('http://gw.invalid/', { method: 'POST', body: form });
    return { ...input, body: new Uint8Array(await encoded.arrayBuffer()), contentType: encoded.headers.get('content-type')!, };
  },

  buildCall(input: PassthroughInput): UpstreamCall {
    // The service path follows from the same fields the form was built from (checked there).
    const { path } = toStabilityImageRequest(input.fields ?? {});
    const headers: Record<string, string> = { ...input.forwardHeaders, 'content-type': input.contentType, accept: 'application/json' };
    if (input.target.apiKey) headers.authorization = `Bearer ${input.target.apiKey}`;
    return { url: stabilityUrl(input.target.customHost, path), headers, body: input.body };
  },

  translateAnswer(answer: PassthroughAnswer) {
    const parsed = jsonOrUndefined(answer.body);
    return { body: JSON.stringify(toOpenAIImages(parsed, answer.fields)), contentType: 'application/json' };
  },
};

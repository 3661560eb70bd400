import { errorBody } from '../../http/errors.js';
import type { DialectCodec } from '../types.js';
import { buildNativeResponsesCall, createNativeResponsesStream, nativeResponseUsage, nativeResponsesStreamError } from './native.js';
import { cacheableResponse, collectResponse, replayResponse } from './native-cache.js';
import { responsesToCanonical, validateResponsesBody } from './request.js';
import { canonicalToResponse } from './response.js';
import { ResponsesStreamEncoder } from './stream.js';

/** Providers that serve the Responses API themselves. */
const NATIVE_PROVIDERS = new Set(['openai', 'azure-openai']);

/** OpenAI's Responses API (`POST /v1/responses`) ⇄ the canonical chat form. Errors keep gw's (OpenAI's) shape. */
export const responsesCodec: DialectCodec = {
  name: 'responses',
  validate: validateResponsesBody,
  speaksNatively: (provider) => NATIVE_PROVIDERS.has(provider),
  toCanonical: responsesToCanonical,
  fromCanonical: canonicalToResponse,
  createStreamEncoder: (body) => new ResponsesStreamEncoder(body),
  buildNativeCall: buildNativeResponsesCall,
  createNativeStreamTranslator: createNativeResponsesStream,
  nativeUsage: nativeResponseUsage,
  createNativeAnswerCollector: collectResponse,
  replayNativeAnswer: replayResponse,
  cacheableNativeAnswer: cacheableResponse,
  // gw keeps the conversation itself, so the provider saw neither `store` nor `previous_response_id`.
  patchNativeAnswer: (response, body) => ({ ...response, store: body.store !== false, previous_response_id: body.previous_response_id ?? null }),
  nativeStreamError: nativeResponsesStreamError,
  errorBody: (error) => ({ ...errorBody(error) }),
};

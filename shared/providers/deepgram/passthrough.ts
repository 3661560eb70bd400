import { audioFileAsBody } from '../common/audio-file.js';
import { jsonOrUndefined } from '../common/answer-json.js';
import type { PassthroughAnswer, PassthroughInput, PassthroughSupport } from '../passthrough-types.js';
import type { UpstreamCall } from '../types.js';
import { DEEPGRAM_API_BASE_URL, deepgramQuery, toOpenAITranscription } from './transcription.js';

/**
 * `/v1/audio/transcriptions` to Deepgram: the audio file is taken out of OpenAI's form and sent as the body with
 * its own content-type; the options go in the query; the answer is made OpenAI's.
 */
export const deepgramPassthrough: PassthroughSupport = {
  endpoints: ['audio/transcriptions'],
  translates: true,

  async prepare(input: PassthroughInput): Promise<PassthroughInput> {
    deepgramQuery(input.fields ?? {}); // a field Deepgram cannot honour is refused before the file is copied
    return audioFileAsBody(input);
  },

  buildCall(input: PassthroughInput): UpstreamCall {
    const base = (input.target.customHost ?? DEEPGRAM_API_BASE_URL).replace(/\/+$/, '').replace(/\/v1$/, '');
    const headers: Record<string, string> = { ...input.forwardHeaders, 'content-type': input.contentType, accept: 'application/json' };
    if (input.target.apiKey) headers.authorization = `Token ${input.target.apiKey}`;
    return { url: `${base}/v1/listen?${deepgramQuery(input.fields ?? {}).toString()}`, headers, body: input.body };
  },

  translateAnswer(answer: PassthroughAnswer) {
    const parsed = jsonOrUndefined(answer.body);
    return toOpenAITranscription(parsed, answer.fields);
  },
};

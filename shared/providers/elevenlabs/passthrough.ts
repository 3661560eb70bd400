import type { PassthroughInput, PassthroughSupport } from '../passthrough-types.js';
import type { UpstreamCall } from '../types.js';
import { ELEVENLABS_API_BASE_URL, toElevenLabsSpeech } from './speech.js';

/** `/v1/audio/speech` to ElevenLabs' streaming text to speech; the audio bytes are relayed as they arrive. */
export const elevenLabsPassthrough: PassthroughSupport = {
  endpoints: ['audio/speech'],
  translates: true,
  buildCall(input: PassthroughInput): UpstreamCall {
    const call = toElevenLabsSpeech(input.fields ?? {});
    const base = (input.target.customHost ?? ELEVENLABS_API_BASE_URL).replace(/\/+$/, '').replace(/\/v1$/, '');
    const headers: Record<string, string> = { ...input.forwardHeaders, 'content-type': 'application/json', accept: 'audio/*' };
    if (input.target.apiKey) headers['xi-api-key'] = input.target.apiKey;
    return { url: `${base}/${call.path}?${call.query.toString()}`, headers, body: JSON.stringify(call.body) };
  },
};

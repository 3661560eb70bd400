import { audioFileAsBody } from '../common/audio-file.js';
import { isRecord, stringField } from '../common/json-guards.js';
import type { PassthroughAnswer, PassthroughFollowUp, PassthroughInput, PassthroughSupport } from '../passthrough-types.js';
import type { UpstreamCall } from '../types.js';
import { invalidAnswer, parseJsonAnswer, readTranscript, toOpenAITranscription, transcriptFailed } from './transcript-answer.js';
import { ASSEMBLYAI_API_BASE_URL, transcriptFormat, transcriptRequest } from './transcript-request.js';

/** Polls start soon (short clips finish in seconds) and slow down to AssemblyAI's suggested 3 s. */
const FIRST_POLL_MS = 250;
const LONGEST_POLL_MS = 3_000;

/**
 * `/v1/audio/transcriptions` to AssemblyAI, a job in three steps: the audio file goes to `POST /v2/upload`, its
 * upload URL to `POST /v2/transcript`, and the transcript is read with `GET /v2/transcript/{id}` until it is
 * `completed` or `error` (then, for srt and vtt, its subtitle file). The EU region is the custom host
 * `https://api.eu.assemblyai.com`; every step goes to the same base URL with `authorization: <key>`.
 */
export const assemblyAIPassthrough: PassthroughSupport = {
  endpoints: ['audio/transcriptions'],
  translates: true,

  async prepare(input: PassthroughInput): Promise<PassthroughInput> {
    // A field AssemblyAI cannot honour is refused before the file is copied, let alone uploaded.
    transcriptRequest(input.fields ?? {}, 'https://upload.invalid/');
    return audioFileAsBody(input);
  },

  buildCall(input: PassthroughInput): UpstreamCall {
    return call(input, 'upload', { body: input.body, contentType: 'application/octet-stream' });
  },

  followUp(answers: readonly PassthroughAnswer[], input: PassthroughInput): PassthroughFollowUp | undefined {
    const fields = input.fields ?? {};
    if (answers.length === 1) {
      const uploaded = parseJsonAnswer(answers[0]);
      const uploadUrl = uploaded && stringField(uploaded, 'upload_url');
      if (!uploadUrl) throw invalidAnswer('AssemblyAI answered the upload without an upload_url');
      return { call: call(input, 'transcript', { body: JSON.stringify(transcriptRequest(fields, uploadUrl)), contentType: 'application/json' }) };
    }
    const last = parseJsonAnswer(answers[answers.length - 1]);
    // Not a transcript: the subtitle file asked for after completion, so the job is done.
    if (!isRecord(last) || last.status === undefined) return undefined;
    const transcript = readTranscript(last);
    if (transcript.status === 'error') throw transcriptFailed(transcript);
    if (transcript.status === 'completed') {
      const format = transcriptFormat(fields);
      return format === 'srt' || format === 'vtt' ? { call: call(input, `transcript/${transcript.id}/${format}`) } : undefined;
    }
    const polls = answers.length - 2;
    return {
      call: call(input, `transcript/${transcript.id}`),
      waitMs: Math.min(LONGEST_POLL_MS, FIRST_POLL_MS * 2 ** polls),
      pending: `the AssemblyAI transcript ${transcript.id} (${transcript.status})`,
    };
  },

  translateAnswer: toOpenAITranscription,
};

/** One call to AssemblyAI's v2 API: a POST with a body, else a GET. */
function call(input: PassthroughInput, path: string, send?: { body: string | Uint8Array; contentType: string }): UpstreamCall {
  const base = (input.target.customHost ?? ASSEMBLYAI_API_BASE_URL).replace(/\/+$/, '').replace(/\/v2$/, '');
  const headers: Record<string, string> = { ...input.forwardHeaders, accept: 'application/json' };
  if (input.target.apiKey) headers.authorization = input.target.apiKey;
  if (!send) return { url: `${base}/v2/${path}`, method: 'GET', headers, body: '' };
  headers['content-type'] = send.contentType;
  return { url: `${base}/v2/${path}`, headers, body: send.body };
}

import { GatewayError } from '../../http/errors.js';
import { jsonOrUndefined } from '../common/answer-json.js';
import { providerErrorMessage } from '../common/error-message.js';
import { isRecord, numberField, stringField } from '../common/json-guards.js';
import type { PassthroughAnswer, TranslatedAnswer } from '../passthrough-types.js';
import type { ProviderErrorSummary } from '../types.js';
import { transcriptFormat } from './transcript-request.js';

/**
 * AssemblyAI's transcript resource (https://www.assemblyai.com/docs/api-reference/transcripts/get) → OpenAI's
 * transcription answer. Word times are milliseconds there and seconds in OpenAI's verbose_json.
 */
export interface Transcript {
  id: string;
  status: string;
  text: string;
  error?: string;
  /** Seconds of audio: what AssemblyAI bills and gw meters. */
  audioSeconds: number;
  language?: string;
  words: Array<{ word: string; start: number; end: number }>;
}

/** A JSON answer of AssemblyAI's, or undefined when the body is no JSON object (a subtitle file). */
export function parseJsonAnswer(answer: PassthroughAnswer): Record<string, unknown> | undefined {
  if (!/\bjson\b/i.test(answer.contentType)) return undefined;
  const parsed = jsonOrUndefined(answer.body);
  return isRecord(parsed) ? parsed : undefined;
}

export function readTranscript(body: Record<string, unknown> | undefined): Transcript {
  const id = body ? stringField(body, 'id') : undefined;
  const status = body ? stringField(body, 'status') : undefined;
  // The id goes into the next call's path: anything but AssemblyAI's UUID-like ids is a broken answer.
  if (!body || !id || !/^[\w-]{1,128}$/.test(id) || !status) throw invalidAnswer('AssemblyAI answered without a transcript id and status');
  const words = Array.isArray(body.words) ? body.words.filter(isRecord) : [];
  return {
    id,
    status,
    text: stringField(body, 'text') ?? '',
    error: stringField(body, 'error'),
    audioSeconds: numberField(body, 'audio_duration') ?? 0,
    language: stringField(body, 'language_code'),
    words: words.map((word) => ({ word: stringField(word, 'text') ?? '', start: (numberField(word, 'start') ?? 0) / 1000, end: (numberField(word, 'end') ?? 0) / 1000 })),
  };
}

/** The transcript gw answers from: the completed one (the last JSON answer; a subtitle file comes after it). */
export function toOpenAITranscription(answer: PassthroughAnswer): TranslatedAnswer {
  const answers = [...(answer.previous ?? []), answer];
  const transcriptAnswer = answers.findLast((one) => parseJsonAnswer(one)?.status !== undefined);
  const transcript = readTranscript(transcriptAnswer && parseJsonAnswer(transcriptAnswer));
  if (transcript.status !== 'completed') throw invalidAnswer(`The AssemblyAI transcript ${transcript.id} is ${transcript.status}, not completed`);
  const usage = { type: 'duration', seconds: Math.ceil(transcript.audioSeconds) };
  const format = transcriptFormat(answer.fields);
  if (format === 'srt' || format === 'vtt') {
    if (answer === transcriptAnswer) throw invalidAnswer(`AssemblyAI sent no ${format} file`);
    return { body: answer.body, contentType: format === 'vtt' ? 'text/vtt; charset=utf-8' : 'text/plain; charset=utf-8', usage };
  }
  if (format === 'text') return { body: transcript.text, contentType: 'text/plain; charset=utf-8', usage };
  if (format === 'json') return { body: JSON.stringify({ text: transcript.text, usage }), contentType: 'application/json', usage };
  const verbose = {
    task: 'transcribe',
    language: transcript.language ?? (typeof answer.fields.language === 'string' ? answer.fields.language : 'en'),
    duration: transcript.audioSeconds,
    text: transcript.text,
    words: transcript.words,
    usage,
  };
  return { body: JSON.stringify(verbose), contentType: 'application/json', usage };
}

/** A transcript AssemblyAI could not make (`status: "error"`): the provider failed, so routing may retry or fall back. */
export function transcriptFailed(transcript: Transcript): GatewayError {
  return new GatewayError(502, 'transcription_failed', `The AssemblyAI transcript ${transcript.id} failed: ${transcript.error ?? 'no reason given'}`, { type: 'upstream_error', upstream: true });
}

export function invalidAnswer(message: string): GatewayError {
  return new GatewayError(502, 'upstream_invalid_response', message, { type: 'upstream_error', upstream: true });
}

/** AssemblyAI errors are `{"error": "<message>"}` with the HTTP status saying what kind. */
export function summariseAssemblyAIError(status: number, body: unknown): ProviderErrorSummary {
  return { message: providerErrorMessage('AssemblyAI', status, body, ['error']), code: STATUS_CODES[status] ?? `http_${status}`, param: null };
}

const STATUS_CODES: Readonly<Record<number, string>> = {
  400: 'bad_request',
  401: 'invalid_api_key',
  403: 'permission_denied',
  404: 'not_found',
  429: 'rate_limit_exceeded',
};

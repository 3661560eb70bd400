import { badRequest, GatewayError } from '../../http/errors.js';
import { providerErrorMessage } from '../common/error-message.js';
import { isRecord, numberField, stringField } from '../common/json-guards.js';
import type { ProviderErrorSummary } from '../types.js';

/**
 * OpenAI's `/v1/audio/transcriptions` form → Deepgram's pre-recorded speech to text (`POST /v1/listen?model=…`,
 * the audio as the body, `Authorization: Token <key>`), and Deepgram's answer → OpenAI's json, text or
 * verbose_json.
 */
export const DEEPGRAM_API_BASE_URL = 'https://api.deepgram.com';
export const DEFAULT_DEEPGRAM_MODEL = 'nova-3';
const FORMATS = new Set(['json', 'text', 'verbose_json']);
/** OpenAI form fields Deepgram has no counterpart for. */
const UNSUPPORTED = ['prompt', 'temperature', 'chunking_strategy', 'include[]'];

export function deepgramQuery(fields: Record<string, unknown>): URLSearchParams {
  const format = fields.response_format ?? 'json';
  if (typeof format !== 'string' || !FORMATS.has(format)) throw badRequest('unsupported_parameter', 'Deepgram transcripts come back as json, text or verbose_json through gw', 'response_format');
  const unsupported = UNSUPPORTED.find((field) => fields[field] !== undefined && fields[field] !== '');
  if (unsupported) throw badRequest('unsupported_parameter', `Deepgram does not support \`${unsupported}\``, unsupported);
  const query = new URLSearchParams({ model: typeof fields.model === 'string' && fields.model !== '' ? fields.model : DEFAULT_DEEPGRAM_MODEL, smart_format: 'true' });
  if (typeof fields.language === 'string' && fields.language !== '') query.set('language', fields.language);
  return query;
}

interface DeepgramWord {
  word?: string;
  punctuated_word?: string;
  start?: number;
  end?: number;
}

/** `results.channels[0].alternatives[0]` and `metadata.duration` → the shape the client asked for. */
export function toOpenAITranscription(answer: unknown, fields: Record<string, unknown>): { body: string; contentType: string } {
  const body = isRecord(answer) ? answer : {};
  const channel = isRecord(body.results) && Array.isArray(body.results.channels) && isRecord(body.results.channels[0]) ? body.results.channels[0] : undefined;
  const best = channel && Array.isArray(channel.alternatives) && isRecord(channel.alternatives[0]) ? channel.alternatives[0] : undefined;
  if (!best) throw new GatewayError(502, 'upstream_invalid_response', 'Deepgram answered without a transcript', { type: 'upstream_error', upstream: true });
  const text = stringField(best, 'transcript') ?? '';
  const duration = isRecord(body.metadata) ? (numberField(body.metadata, 'duration') ?? 0) : 0;
  const format = fields.response_format ?? 'json';
  if (format === 'text') return { body: text, contentType: 'text/plain; charset=utf-8' };
  const usage = { type: 'duration', seconds: Math.ceil(duration) };
  if (format !== 'verbose_json') return { body: JSON.stringify({ text, usage }), contentType: 'application/json' };
  const words = (Array.isArray(best.words) ? best.words.filter(isRecord) : []) as DeepgramWord[];
  return {
    body: JSON.stringify({
      task: 'transcribe',
      language: (channel && stringField(channel, 'detected_language')) ?? (typeof fields.language === 'string' ? fields.language : 'en'),
      duration,
      text,
      words: words.map((word) => ({ word: word.punctuated_word ?? word.word ?? '', start: word.start ?? 0, end: word.end ?? 0 })),
      usage,
    }),
    contentType: 'application/json',
  };
}

/** Deepgram errors: `{"err_code", "err_msg", "request_id"}` or the newer `{"category", "message", "details"}`. */
export function summariseDeepgramError(status: number, body: unknown): ProviderErrorSummary {
  const record = isRecord(body) ? body : {};
  const message = providerErrorMessage('Deepgram', status, body, ['err_msg', 'message']);
  const code = stringField(record, 'category') ?? stringField(record, 'err_code') ?? `http_${status}`;
  return { message, code: code.toLowerCase().replace(/\s+/g, '_'), param: null };
}

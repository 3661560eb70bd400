import { badRequest } from '../../http/errors.js';
import { isRecord, stringField } from '../common/json-guards.js';
import type { ProviderErrorSummary } from '../types.js';

/**
 * OpenAI's `/v1/audio/speech` body → ElevenLabs' text to speech (`POST /v1/text-to-speech/{voice_id}/stream`,
 * `xi-api-key`), which answers the audio bytes as they are made.
 */
export const ELEVENLABS_API_BASE_URL = 'https://api.elevenlabs.io';
export const DEFAULT_ELEVENLABS_MODEL = 'eleven_multilingual_v2';

/** OpenAI's `response_format` → ElevenLabs' `output_format` (OpenAI's pcm is 24 kHz 16-bit, as ElevenLabs' pcm_24000). */
const FORMATS: Record<string, string> = { mp3: 'mp3_44100_128', pcm: 'pcm_24000', opus: 'opus_48000_128' };
/** ElevenLabs' own format names (`mp3_22050_32`, `ulaw_8000`, …) are accepted as they are. */
const NATIVE_FORMAT = /^(mp3|pcm|opus|ulaw|alaw|wav)_\d+(_\d+)?$/;

export interface ElevenLabsSpeechCall {
  path: string;
  query: URLSearchParams;
  body: Record<string, unknown>;
}

export function toElevenLabsSpeech(fields: Record<string, unknown>): ElevenLabsSpeechCall {
  const voice = isRecord(fields.voice) ? fields.voice.id : fields.voice;
  if (typeof voice !== 'string' || !/^[A-Za-z0-9_-]{1,64}$/.test(voice)) throw badRequest('invalid_request', '`voice` must be an ElevenLabs voice id (letters, digits, _ or -)', 'voice');
  if (fields.instructions !== undefined && fields.instructions !== null) throw badRequest('unsupported_parameter', 'ElevenLabs does not support `instructions`', 'instructions');
  const format = fields.response_format ?? 'mp3';
  const outputFormat = typeof format === 'string' ? (FORMATS[format] ?? (NATIVE_FORMAT.test(format) ? format : undefined)) : undefined;
  if (!outputFormat) throw badRequest('unsupported_parameter', `ElevenLabs answers mp3, pcm or opus (or its own formats such as mp3_22050_32): \`response_format\` ${JSON.stringify(format)} is not one`, 'response_format');
  const body: Record<string, unknown> = { text: fields.input, model_id: typeof fields.model === 'string' ? fields.model : DEFAULT_ELEVENLABS_MODEL };
  const settings: Record<string, unknown> = isRecord(fields.voice_settings) ? { ...fields.voice_settings } : {};
  if (typeof fields.speed === 'number') settings.speed = fields.speed;
  if (Object.keys(settings).length > 0) body.voice_settings = settings;
  for (const own of ['language_code', 'seed', 'previous_text', 'next_text']) if (fields[own] !== undefined) body[own] = fields[own];
  return { path: `v1/text-to-speech/${voice}/stream`, query: new URLSearchParams({ output_format: outputFormat }), body };
}

/**
 * ElevenLabs errors: `{"detail": {"status": "invalid_api_key", "message": "…"}}`, or FastAPI's list of problems for
 * a 422; the status names the code.
 */
export function summariseElevenLabsError(status: number, body: unknown): ProviderErrorSummary {
  const detail = isRecord(body) ? body.detail : undefined;
  if (isRecord(detail)) {
    return { message: stringField(detail, 'message') ?? `ElevenLabs answered with HTTP ${status}`, code: stringField(detail, 'status') ?? stringField(detail, 'code') ?? `http_${status}`, param: null };
  }
  const message = (typeof detail === 'string' && detail) || (detail !== undefined && JSON.stringify(detail).slice(0, 500)) || (typeof body === 'string' && body.trim().slice(0, 500)) || `ElevenLabs answered with HTTP ${status}`;
  return { message, code: status === 422 ? 'invalid_request' : `http_${status}`, param: null };
}

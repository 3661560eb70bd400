import type { RequestLogRecord } from '../../../shared/observability/log-record.js';
import { logRecord } from './log-engine-support.js';

/**
 * Log records of the three kinds of media request (issue #47), as the after-path writes them: an image request
 * (images with the size and quality that priced them), a speech request (characters) and a transcription (audio
 * seconds, fractional as a provider reports them); no tokens.
 */
export const ZERO_TOKENS = { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0, cached_tokens: 0, reasoning_tokens: 0 };

export function mediaRecords(day: string): RequestLogRecord[] {
  const at = (minute: number) => `${day}T10:${String(minute).padStart(2, '0')}:00.000Z`;
  return [
    logRecord({ id: 'image', created_at: at(1), endpoint: 'images/generations', model: 'dall-e-3', cost: 0.24, usage: { ...ZERO_TOKENS, images: 2, image_size: '1024x1792', image_quality: 'hd' } }),
    logRecord({ id: 'speech', created_at: at(2), endpoint: 'audio/speech', model: 'tts-1', cost: 0.000465, usage: { ...ZERO_TOKENS, characters: 31 } }),
    logRecord({ id: 'transcription', created_at: at(3), endpoint: 'audio/transcriptions', provider: 'deepgram', model: 'nova-3', cost: 0.0018634, usage: { ...ZERO_TOKENS, audio_seconds: 25.933 } }),
  ];
}

/** A chat request as a log file or a Firehose record from before the media columns held it: tokens only. */
export function chatRecord(day: string): RequestLogRecord {
  return logRecord({ id: 'old-chat', created_at: `${day}T10:00:00.000Z` });
}

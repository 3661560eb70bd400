import { merged } from '../../merged.js';
import { tokenCounts } from './usage-tokens.js';

/**
 * What media endpoints are billed by, read from (or written into) a usage object: `images` (with the request's
 * `image_size` and `image_quality`, which set an image's price), `characters` of speech input, `audio_seconds` of
 * transcribed audio (OpenAI's own `{"type": "duration", "seconds"}` counts too).
 */
export interface MediaUnits {
  images?: number;
  imageSize?: string;
  imageQuality?: string;
  characters?: number;
  audioSeconds?: number;
}

/** The media units of a usage object, or undefined when it has none. */
export function mediaUnits(usage: Record<string, unknown> | undefined): MediaUnits | undefined {
  if (!usage) return undefined;
  const seconds = count(usage.audio_seconds) ?? (usage.type === 'duration' ? count(usage.seconds) : undefined);
  const units: MediaUnits = { images: count(usage.images), characters: count(usage.characters), audioSeconds: seconds };
  if (units.images === undefined && units.characters === undefined && units.audioSeconds === undefined) return undefined;
  if (typeof usage.image_size === 'string') units.imageSize = usage.image_size;
  if (typeof usage.image_quality === 'string') units.imageQuality = usage.image_quality;
  return units;
}

/**
 * Audio gw cannot see the length of before the call (or after it, when the answer is text, srt or vtt) is counted
 * from its file size at 16 kbit/s, the low end of compressed speech: a higher bitrate (most files) counts more
 * seconds than it has, so a reservation is rarely short.
 */
const ASSUMED_AUDIO_BYTES_PER_SECOND = 2_000;

/**
 * The usage a media endpoint's log record and settlement count: the provider's own when it reported tokens (gpt-image-1,
 * gpt-4o-transcribe bill tokens), else the units the endpoint is billed by, read from the request and the answer.
 */
export function withMediaUnits(endpoint: string, fields: Record<string, unknown>, usage: Record<string, unknown> | undefined, answer?: unknown): Record<string, unknown> | undefined {
  if ((tokenCounts(usage)?.total ?? 0) > 0) return usage;
  const units = endpointUnits(endpoint, fields, usage, answer);
  return units ? merged(usage, units) : usage;
}

/** The most a media request can be billed for, known before the call: what admission reserves. */
export function estimatedMediaUsage(endpoint: string, fields: Record<string, unknown>): Record<string, unknown> | undefined {
  return endpointUnits(endpoint, fields, undefined, undefined);
}

function endpointUnits(endpoint: string, fields: Record<string, unknown>, usage: Record<string, unknown> | undefined, answer: unknown): Record<string, unknown> | undefined {
  if (endpoint === 'images/generations' || endpoint === 'images/edits') {
    const data = isRecord(answer) && Array.isArray(answer.data) ? answer.data.length : undefined;
    const units: Record<string, unknown> = { images: data ?? positiveInteger(fields.n) ?? 1 };
    if (typeof fields.size === 'string') units.image_size = fields.size;
    if (typeof fields.quality === 'string') units.image_quality = fields.quality;
    return units;
  }
  if (endpoint === 'audio/speech') return typeof fields.input === 'string' ? { characters: [...fields.input].length } : undefined;
  if (endpoint === 'audio/transcriptions' || endpoint === 'audio/translations') {
    const reported = mediaUnits(usage)?.audioSeconds ?? (isRecord(answer) ? count(answer.duration) : undefined);
    if (reported !== undefined) return { audio_seconds: reported };
    const file = isRecord(fields.file) ? count(fields.file.bytes) : undefined;
    return file === undefined ? undefined : { audio_seconds: Math.ceil(file / ASSUMED_AUDIO_BYTES_PER_SECOND), audio_seconds_estimated: true };
  }
  return undefined;
}

function count(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : undefined;
}

function positiveInteger(value: unknown): number | undefined {
  const parsed = typeof value === 'string' ? Number(value) : value;
  return typeof parsed === 'number' && Number.isInteger(parsed) && parsed > 0 ? parsed : undefined;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

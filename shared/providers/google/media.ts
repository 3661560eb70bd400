import { badRequest } from '../../http/errors.js';
import { parseDataUrl } from '../common/content.js';
import type { GeminiPart } from './gemini-types.js';

/**
 * OpenAI content parts that carry media → Gemini parts. Data URLs go inline (base64, as Gemini wants);
 * http(s) and gs:// URLs go as `fileData` references, which Gemini fetches itself (the Gemini API accepts
 * public and signed https URLs and Files API URIs; Vertex AI accepts gs:// and https URLs).
 */
const MIME_BY_EXTENSION: Record<string, string> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  webp: 'image/webp',
  gif: 'image/gif',
  heic: 'image/heic',
  heif: 'image/heif',
  pdf: 'application/pdf',
  mp3: 'audio/mpeg',
  wav: 'audio/wav',
  flac: 'audio/flac',
  ogg: 'audio/ogg',
  mp4: 'video/mp4',
  mov: 'video/quicktime',
  webm: 'video/webm',
  txt: 'text/plain',
};

const AUDIO_FORMATS: Record<string, string> = { wav: 'audio/wav', mp3: 'audio/mpeg', flac: 'audio/flac', ogg: 'audio/ogg', aac: 'audio/aac', aiff: 'audio/aiff' };

/** A URL or data URL as a Gemini part; `fallbackMime` applies when the URL says nothing about its type. */
export function mediaPart(url: string, fallbackMime: string, param: string): GeminiPart {
  const data = parseDataUrl(url);
  if (data) return { inlineData: { mimeType: data.mediaType, data: data.base64 } };
  if (/^data:/i.test(url)) throw badRequest('invalid_content', `${param} is a data URL without base64 data; send data:<media type>;base64,<data>`, param);
  if (!/^(https?|gs):\/\//i.test(url) && !/^files\//.test(url)) {
    throw badRequest('invalid_content', `${param} must be a data URL, an http(s) URL, a gs:// URI or a Files API name (files/…)`, param);
  }
  return { fileData: { mimeType: mimeFromUrl(url) ?? fallbackMime, fileUri: url } };
}

export function audioPart(audio: unknown, param: string): GeminiPart {
  const input = audio as { data?: unknown; format?: unknown } | undefined;
  if (!input || typeof input.data !== 'string' || typeof input.format !== 'string') {
    throw badRequest('invalid_content', `${param} must be {data: <base64>, format: "wav" | "mp3" | …}`, param);
  }
  const mimeType = AUDIO_FORMATS[input.format.toLowerCase()];
  if (!mimeType) throw badRequest('invalid_content', `${param}.format must be one of ${Object.keys(AUDIO_FORMATS).join(', ')}`, `${param}.format`);
  return { inlineData: { mimeType, data: input.data } };
}

/** OpenAI's `file` part: `{file: {file_data: <data URL>}}` or `{file: {file_id: <URI>}}`. */
export function filePart(file: unknown, param: string): GeminiPart {
  const input = file as { file_data?: unknown; file_id?: unknown; filename?: unknown } | undefined;
  if (input && typeof input.file_data === 'string') {
    const fallback = (typeof input.filename === 'string' && mimeFromUrl(input.filename)) || 'application/pdf';
    if (input.file_data.startsWith('data:')) return mediaPart(input.file_data, fallback, `${param}.file_data`);
    // OpenAI also accepts bare base64 here; the filename is then the only hint of the type.
    return { inlineData: { mimeType: fallback, data: input.file_data } };
  }
  if (input && typeof input.file_id === 'string') return mediaPart(input.file_id, 'application/pdf', `${param}.file_id`);
  throw badRequest('invalid_content', `${param} must carry file_data (a data URL) or file_id (a URI)`, param);
}

function mimeFromUrl(url: string): string | undefined {
  const path = url.split(/[?#]/)[0];
  const extension = /\.([a-z0-9]+)$/i.exec(path)?.[1]?.toLowerCase();
  return extension ? MIME_BY_EXTENSION[extension] : undefined;
}

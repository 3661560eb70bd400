import { badRequest } from '../../http/errors.js';

/**
 * OpenAI's `/v1/audio/transcriptions` form fields → the body of AssemblyAI's `POST /v2/transcript`
 * (https://www.assemblyai.com/docs/api-reference/transcripts/submit), checked before the file is uploaded.
 */
export const ASSEMBLYAI_API_BASE_URL = 'https://api.assemblyai.com';
/** Every language AssemblyAI transcribes (99); Universal-3 Pro covers six, so it is asked for by name only. */
export const DEFAULT_ASSEMBLYAI_MODEL = 'universal-2';
/** The model that takes a free-text prompt (style, context); the others take a list of terms to boost. */
const PROMPTED_MODEL = 'universal-3-pro';
export const TRANSCRIPT_FORMATS = new Set(['json', 'text', 'verbose_json', 'srt', 'vtt']);
/** OpenAI form fields AssemblyAI has no counterpart for. */
const UNSUPPORTED = ['temperature', 'chunking_strategy', 'include[]'];
/** AssemblyAI's limit on a boosted phrase; a longer one is a sentence, not a term. */
const WORDS_PER_TERM = 6;

export function transcriptFormat(fields: Record<string, unknown>): string {
  const format = fields.response_format ?? 'json';
  if (typeof format !== 'string' || !TRANSCRIPT_FORMATS.has(format)) throw badRequest('unsupported_parameter', '`response_format` must be json, text, verbose_json, srt or vtt', 'response_format');
  return format;
}

export function transcriptModel(fields: Record<string, unknown>): string {
  return typeof fields.model === 'string' && fields.model !== '' ? fields.model : DEFAULT_ASSEMBLYAI_MODEL;
}

/** The transcript request for an uploaded file; throws 400 naming the field AssemblyAI cannot honour. */
export function transcriptRequest(fields: Record<string, unknown>, audioUrl: string): Record<string, unknown> {
  transcriptFormat(fields);
  const unsupported = UNSUPPORTED.find((field) => fields[field] !== undefined && fields[field] !== '');
  if (unsupported) throw badRequest('unsupported_parameter', `AssemblyAI does not support \`${unsupported}\``, unsupported);
  if (fields.stream === 'true' || fields.stream === true) throw badRequest('unsupported_parameter', 'AssemblyAI transcribes recorded files without streaming through gw', 'stream');
  const model = transcriptModel(fields);
  const body: Record<string, unknown> = { audio_url: audioUrl, speech_models: [model] };
  if (typeof fields.language === 'string' && fields.language !== '') body.language_code = fields.language;
  else body.language_detection = true;
  if (typeof fields.prompt === 'string' && fields.prompt.trim() !== '') Object.assign(body, promptFields(fields.prompt, model));
  return body;
}

/**
 * OpenAI's `prompt` guides spelling and style. Universal-3 Pro takes it as its own `prompt`; the other models take
 * a list of terms (`word_boost`), so a prompt that is a comma- or line-separated list of short terms is boosted,
 * and prose, which they cannot use, is refused rather than silently dropped.
 */
function promptFields(prompt: string, model: string): Record<string, unknown> {
  if (model === PROMPTED_MODEL) return { prompt };
  const terms = prompt
    .split(/[,\n]/)
    .map((term) => term.trim())
    .filter((term) => term !== '');
  if (terms.some((term) => term.split(/\s+/).length > WORDS_PER_TERM)) {
    throw badRequest('unsupported_parameter', `AssemblyAI's ${model} takes \`prompt\` as words to boost: a comma-separated list of terms of up to ${WORDS_PER_TERM} words (free-text prompts need universal-3-pro)`, 'prompt');
  }
  return { word_boost: terms };
}

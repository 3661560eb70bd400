import { mediaOnlyAdapter } from '../common/media-only-adapter.js';
import { summariseDeepgramError } from './transcription.js';

/** Deepgram serves transcription only (`/v1/audio/transcriptions`, ./passthrough.ts). */
export const deepgramAdapter = mediaOnlyAdapter({ slug: 'deepgram', aliases: [], displayName: 'Deepgram', serves: '/v1/audio/transcriptions' }, summariseDeepgramError);

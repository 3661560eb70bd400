import { mediaOnlyAdapter } from '../common/media-only-adapter.js';
import { summariseElevenLabsError } from './speech.js';

/** ElevenLabs serves speech only (`/v1/audio/speech`, ./passthrough.ts). */
export const elevenLabsAdapter = mediaOnlyAdapter({ slug: 'elevenlabs', aliases: ['eleven-labs', '11labs'], displayName: 'ElevenLabs', serves: '/v1/audio/speech' }, summariseElevenLabsError);

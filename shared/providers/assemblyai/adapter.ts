import { mediaOnlyAdapter } from '../common/media-only-adapter.js';
import { summariseAssemblyAIError } from './transcript-answer.js';

/** AssemblyAI serves transcription only (`/v1/audio/transcriptions`, ./passthrough.ts). */
export const assemblyAIAdapter = mediaOnlyAdapter({ slug: 'assemblyai', aliases: ['assembly-ai'], displayName: 'AssemblyAI', serves: '/v1/audio/transcriptions' }, summariseAssemblyAIError);

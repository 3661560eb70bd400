import { mediaOnlyAdapter } from '../common/media-only-adapter.js';
import { summariseStabilityError } from './http.js';

/** Stability AI serves images only (`/v1/images/generations`, ./passthrough.ts). */
export const stabilityAIAdapter = mediaOnlyAdapter({ slug: 'stability-ai', aliases: ['stability'], displayName: 'Stability AI', serves: '/v1/images/generations' }, summariseStabilityError);

import type * as z from 'zod';
import type { PassthroughEndpoint } from '../../providers/passthrough-types.js';
import type { PassthroughPath } from './paths.js';
import {
  audioFileFormSchema,
  imageEditFormSchema,
  imageGenerationRequestSchema,
  moderationRequestSchema,
  rerankRequestSchema,
  speechRequestSchema,
} from './schemas.js';

/** How gw handles one pass-through endpoint's body and answer. */
export interface PassthroughRoute {
  path: PassthroughPath;
  endpoint: PassthroughEndpoint;
  /** `json`: a JSON object; `multipart`: multipart/form-data forwarded byte for byte (boundary kept). */
  body: 'json' | 'multipart';
  /** The fields gw checks (JSON body, or the text fields of the form). */
  schema: z.ZodType;
  /** The file field the form must carry. */
  fileField?: string;
  /** The answer is relayed chunk by chunk as it arrives (audio) instead of read whole first. */
  streamsAnswer: boolean;
}

export const PASSTHROUGH_ROUTES: readonly PassthroughRoute[] = [
  { path: '/v1/images/generations', endpoint: 'images/generations', body: 'json', schema: imageGenerationRequestSchema, streamsAnswer: false },
  { path: '/v1/images/edits', endpoint: 'images/edits', body: 'multipart', schema: imageEditFormSchema, fileField: 'image', streamsAnswer: false },
  { path: '/v1/audio/speech', endpoint: 'audio/speech', body: 'json', schema: speechRequestSchema, streamsAnswer: true },
  { path: '/v1/audio/transcriptions', endpoint: 'audio/transcriptions', body: 'multipart', schema: audioFileFormSchema, fileField: 'file', streamsAnswer: false },
  { path: '/v1/audio/translations', endpoint: 'audio/translations', body: 'multipart', schema: audioFileFormSchema, fileField: 'file', streamsAnswer: false },
  { path: '/v1/moderations', endpoint: 'moderations', body: 'json', schema: moderationRequestSchema, streamsAnswer: false },
  { path: '/v1/rerank', endpoint: 'rerank', body: 'json', schema: rerankRequestSchema, streamsAnswer: false },
];

/** How `path` is served; every path of paths.ts has exactly one route here (test/unit/gateway/passthrough-paths.test.ts). */
export function passthroughRoute(path: PassthroughPath): PassthroughRoute {
  const route = PASSTHROUGH_ROUTES.find((candidate) => candidate.path === path);
  if (!route) throw new Error(`no pass-through route for ${path} (paths.ts and endpoints.ts disagree)`);
  return route;
}

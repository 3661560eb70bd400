/**
 * The pass-through paths, apart from how each is served (endpoints.ts, with its zod schemas): the gateway
 * registers these at start and imports the rest on the first such request.
 */
export const PASSTHROUGH_PATHS = [
  '/v1/images/generations',
  '/v1/images/edits',
  '/v1/audio/speech',
  '/v1/audio/transcriptions',
  '/v1/audio/translations',
  '/v1/moderations',
  '/v1/rerank',
] as const;

export type PassthroughPath = (typeof PASSTHROUGH_PATHS)[number];

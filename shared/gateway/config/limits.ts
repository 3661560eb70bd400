/** The config's numeric limits, shared by the schema (schema.ts) and the code that walks a parsed config. */
export const MAX_RETRY_ATTEMPTS = 5;
export const MAX_REQUEST_TIMEOUT_MS = 15 * 60 * 1000;
export const DEFAULT_CACHE_MAX_AGE_SECONDS = 7 * 24 * 3600;
export const MAX_CACHE_MAX_AGE_SECONDS = 90 * 24 * 3600;
export const MAX_TARGET_DEPTH = 5;
export const MAX_TARGETS_PER_LEVEL = 50;

import { badRequest } from './errors.js';
import { MAX_ID_CHARS } from './ids.js';

/** The longest path segment gw accepts, in characters after decoding: path segments are ids (ids.ts). */
export const MAX_PATH_SEGMENT_CHARS = MAX_ID_CHARS;

/**
 * The decoded segments of a request path, or a 400 `invalid_path` for malformed percent-encoding (`%ff`,
 * `%E0%A4%A`, a lone `%`) or a segment over MAX_PATH_SEGMENT_CHARS. Both cores call it on every request before
 * authentication and routing, so the answer is the same with or without a key and for a path that names
 * something or nothing: a bad path tells the caller nothing about what exists.
 */
export function decodePathSegments(path: string): string[] {
  return path
    .split('/')
    .filter((segment) => segment.length > 0)
    .map((segment) => {
      let decoded: string;
      try {
        decoded = decodeURIComponent(segment);
      } catch {
        throw badRequest('invalid_path', 'The request path holds a malformed percent-encoding (every % must start a valid UTF-8 escape such as %20)');
      }
      if (decoded.length > MAX_PATH_SEGMENT_CHARS) {
        throw badRequest('invalid_path', `A segment of the request path is ${decoded.length} characters long; ids in paths are at most ${MAX_PATH_SEGMENT_CHARS}`);
      }
      return decoded;
    });
}

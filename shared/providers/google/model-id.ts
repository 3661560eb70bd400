import { badRequest } from '../../http/errors.js';

/**
 * The model as a URL path segment. `models/` is accepted as a prefix (Google's own resource names carry it);
 * anything that could change the path (slashes, `..`, `?`) is refused.
 */
export function geminiModelId(model: unknown): string {
  const id = typeof model === 'string' ? model.trim().replace(/^models\//, '') : '';
  if (!/^[A-Za-z0-9][A-Za-z0-9._@-]*$/.test(id) || id.includes('..')) {
    throw badRequest('invalid_model', '`model` must be a Gemini model id such as gemini-2.5-flash (letters, digits, ".", "-", "_", "@")', 'model');
  }
  return id;
}

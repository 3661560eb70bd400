import { badRequest } from '../../http/errors.js';
import type { AdapterInput, OpenAIBody } from '../types.js';

/**
 * A parameter a provider cannot honour is a 400 naming it, never a silent drop, unless the caller opted out
 * with `x-gw-drop-unsupported-params: true`; then the parameters are removed from the body.
 */
export function withoutUnsupportedParams(input: AdapterInput, providerName: string, unsupported: readonly string[]): OpenAIBody {
  const present = unsupported.filter((name) => input.body[name] !== undefined && input.body[name] !== null);
  if (present.length === 0) return input.body;
  if (!input.dropUnsupportedParams) {
    throw badRequest(
      'unsupported_parameter',
      `${providerName} does not support ${present.map((name) => `\`${name}\``).join(', ')}; remove ${present.length > 1 ? 'them' : 'it'} or send x-gw-drop-unsupported-params: true to have gw drop unsupported parameters`,
      present[0],
    );
  }
  const body = { ...input.body };
  for (const name of present) delete body[name];
  return body;
}

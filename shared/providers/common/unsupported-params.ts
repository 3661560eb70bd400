import { badRequest } from '../../http/errors.js';
import type { AdapterInput, OpenAIBody } from '../types.js';

/**
 * The one rule for a parameter a target cannot honour, on every provider: a 400 naming it, never a silent
 * drop, unless the caller opted out with `x-gw-drop-unsupported-params: true`; then it is removed and reported
 * (`input.droppedParams` → the `x-gw-dropped-params` response header).
 */
/**
 * Parameters a target has no field for, each with a test for the values that ask for nothing and are accepted
 * (OpenAI's defaults: `n: 1`, a penalty of 0, …).
 */
export type UnsupportedParamChecks = Readonly<Record<string, (value: unknown) => boolean>>;

/** The names in `checks` that the body sets to something the target would have to honour. */
export function paramsAskingForMore(body: OpenAIBody, checks: UnsupportedParamChecks, exempt?: (name: string) => boolean): string[] {
  return Object.keys(checks).filter((name) => {
    const value = body[name];
    return value !== undefined && value !== null && !exempt?.(name) && !checks[name](value);
  });
}

export function withoutUnsupportedParams(input: AdapterInput, providerName: string, unsupported: readonly string[]): OpenAIBody {
  const present = unsupported.filter((name) => input.body[name] !== undefined && input.body[name] !== null);
  if (present.length === 0) return input.body;
  refuseOrRecordDrop(input, providerName, present);
  const body = { ...input.body };
  for (const name of present) delete body[name];
  return body;
}

/**
 * For a parameter (or a dotted part of one, e.g. `response_format`) that the caller sent and the target cannot
 * honour: throws the 400 unless dropping was asked for, in which case the names are recorded as dropped. The
 * caller removes the value itself.
 */
export function refuseOrRecordDrop(input: Pick<AdapterInput, 'dropUnsupportedParams' | 'droppedParams'>, providerName: string, names: readonly string[], why?: string): void {
  if (names.length === 0) return;
  if (!input.dropUnsupportedParams) {
    const list = names.map((name) => `\`${name}\``).join(', ');
    throw badRequest(
      'unsupported_parameter',
      `${providerName} does not support ${list}${why ? ` ${why}` : ''}; remove ${names.length > 1 ? 'them' : 'it'} or send x-gw-drop-unsupported-params: true to have gw drop unsupported parameters`,
      names[0],
    );
  }
  recordDropped(input, names);
}

export function recordDropped(input: Pick<AdapterInput, 'droppedParams'>, names: readonly string[]): void {
  if (!input.droppedParams) return;
  for (const name of names) if (!input.droppedParams.includes(name)) input.droppedParams.push(name);
}

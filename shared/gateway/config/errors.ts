import type { z } from 'zod';
import { GatewayError } from '../../http/errors.js';

/**
 * The AB01 family: every way a config can be invalid, each with its own code. `param` is the JSON path
 * that failed (e.g. `config.targets[1].retry.attempts`) and the message names what is allowed.
 */
export const CONFIG_ERROR_CODES = {
  AB0101: 'the config is not valid JSON',
  AB0102: 'unknown field',
  AB0103: 'value not among the allowed values',
  AB0104: 'required field missing',
  AB0105: 'wrong type',
  AB0106: 'value out of range',
  AB0107: 'unknown provider',
  AB0108: 'invalid conditional routing (operator, regex or target name)',
  AB0109: 'a strategy without targets, or targets without a strategy',
  AB0110: 'load-balance weights: none above zero',
  AB0111: 'saved config not found in this workspace (or that version does not exist)',
  AB0112: 'conditional routing matched no condition and has no default',
  AB0113: 'a target that names no provider (no provider, virtual_key or request headers to inherit from)',
  AB0114: 'targets nested too deeply',
  AB0115: 'custom_host not allowed',
  AB0116: 'invalid saved config reference',
  AB0117: 'semantic cache without an embeddings model for the target provider',
  AB0118: 'unknown guardrail: input_guardrails (or the workspace default_guardrails) names no guardrail of this workspace',
} as const;

export type ConfigErrorCode = keyof typeof CONFIG_ERROR_CODES;

export function configError(code: ConfigErrorCode, path: string, message: string): GatewayError {
  return new GatewayError(400, code, `Invalid config at ${path}: ${message}`, { param: path });
}

export function pathOf(base: string, path: ReadonlyArray<PropertyKey>): string {
  let out = base;
  for (const part of path) out += typeof part === 'number' ? `[${part}]` : `.${String(part)}`;
  return out;
}

/** Turns the first zod issue into its AB01 error; `raw` is the input, to tell a missing field from a wrong one. */
export function configErrorFromZod(error: z.ZodError, raw: unknown, base = 'config'): GatewayError {
  const issue = error.issues[0];
  const path = pathOf(base, issue.path);
  const missing = issue.code !== 'unrecognized_keys' && !hasPath(raw, issue.path);
  if (missing) return configError('AB0104', path, 'required field is missing');
  switch (issue.code) {
    case 'unrecognized_keys':
      return configError('AB0102', pathOf(path, [issue.keys[0]]), `unknown field "${issue.keys[0]}"`);
    case 'invalid_value':
      return configError('AB0103', path, `must be one of ${issue.values.map((value) => JSON.stringify(value)).join(', ')}`);
    case 'invalid_type':
      return configError('AB0105', path, `expected ${issue.expected}`);
    case 'too_small':
    case 'too_big':
      return configError('AB0106', path, issue.message);
    default:
      return configError('AB0105', path, issue.message);
  }
}

function hasPath(raw: unknown, path: ReadonlyArray<PropertyKey>): boolean {
  let current = raw;
  for (const part of path) {
    if (typeof current !== 'object' || current === null || !(part in current)) return false;
    current = (current as Record<PropertyKey, unknown>)[part];
  }
  return current !== undefined;
}

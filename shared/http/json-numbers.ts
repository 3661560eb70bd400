import { badRequest } from './errors.js';

/**
 * Every number a client sends must be one gw can store and use exactly: within ±(2^53 − 1), the range in which a
 * JavaScript number is an exact integer and which DynamoDB's marshaller accepts. Beyond it (`9007199254740993`,
 * `1e16`, `1e308`) the value parsed is already not the value sent (9007199254740993 arrives as …992), and storing
 * it would fail in the marshaller as a 500. Checked on the parsed body, everywhere at once (limits, budgets,
 * configs' `override_params`, deployments, SCIM resources, inference bodies, …): 400 `invalid_number` naming the
 * field by its JSON path.
 */
export function assertStorableNumbers(value: unknown, path = ''): void {
  const field = unstorableNumberPath(value, path);
  if (field !== undefined) throw badRequest('invalid_number', unstorableNumberMessage(field), field || null);
}

/** The JSON path of the first number outside ±(2^53 − 1) in `value` ('' for `value` itself), or undefined. */
export function unstorableNumberPath(value: unknown, path = ''): string | undefined {
  if (typeof value === 'number') return Number.isFinite(value) && Math.abs(value) <= Number.MAX_SAFE_INTEGER ? undefined : path;
  if (Array.isArray(value)) {
    for (let index = 0; index < value.length; index++) {
      const found = unstorableNumberPath(value[index], `${path}[${index}]`);
      if (found !== undefined) return found;
    }
    return undefined;
  }
  if (typeof value === 'object' && value !== null) {
    for (const key in value) {
      if (!Object.hasOwn(value, key)) continue;
      const found = unstorableNumberPath((value as Record<string, unknown>)[key], path ? `${path}.${key}` : key);
      if (found !== undefined) return found;
    }
  }
  return undefined;
}

/** What the refusal says, in gw's error shape and SCIM's alike. */
export function unstorableNumberMessage(field: string): string {
  return `${field || 'The request body'}: numbers must lie between -${Number.MAX_SAFE_INTEGER} and ${Number.MAX_SAFE_INTEGER} (2^53 - 1)`;
}
